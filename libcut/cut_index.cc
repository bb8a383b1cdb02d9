#include "libcut/cut_index.h"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "libcut/index_builder.h"

namespace cut {

const CutOnNode* FindCut(const NodeIndex& n, const wal::Uuid& id, size_t* pos) {
  for (size_t i = 0; i < n.cuts.size(); ++i) {
    if (n.cuts[i].id == id) {
      if (pos) *pos = i;
      return &n.cuts[i];
    }
  }
  return nullptr;
}

Side SideOf(const CutOnNode& c, const wal::TxId& xid, const wal::Pointer& commit) {
  auto listed = [&](const std::vector<wal::TxId>& v) { return std::find(v.begin(), v.end(), xid) != v.end(); };
  return SideOfCommit(RegionOf(commit, c.start, c.finish), [&] { return listed(c.before); },
                      [&] { return listed(c.after); });
}

struct NodeIndexStream::Impl {
  NodeIndex progress;
  std::deque<CutOnNode> ready;
  IndexBuilder builder{&progress, &ready};
  std::unique_ptr<wal::WalReader> reader;
  RecordTap tap;
  bool done = false;
};

NodeIndexStream::NodeIndexStream() : impl_(std::make_unique<Impl>()) {}
NodeIndexStream::~NodeIndexStream() = default;

wal::Result<std::unique_ptr<NodeIndexStream>> NodeIndexStream::Open(const std::string& node,
                                                                    const wal::WalLocation& wal_dir, RecordTap tap) {
  std::unique_ptr<NodeIndexStream> s(new NodeIndexStream());
  Impl* impl = s->impl_.get();
  impl->progress.node = node;
  impl->tap = std::move(tap);
  // Many nodes are read at once: the pages of each segment go back as they are read.
  wal::ReaderOptions options;
  options.release_consumed = true;
  options.light = true;
  auto files = wal::ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  if (files->empty()) return wal::Status::NotFound(fmt::format("\"{}\" holds no WAL segment", wal_dir.ToString()));
  impl->reader = wal::WalReader::OpenFiles(std::move(files).value(), options,
                                           [impl](const wal::Issue& i) { impl->builder.OnIssue(i); });
  impl->builder.set_reader(impl->reader.get());
  return s;
}

bool NodeIndexStream::Next(CutOnNode* out) {
  Impl& m = *impl_;
  const wal::Record* r = nullptr;
  while (m.ready.empty() && !m.done) {
    if (m.reader->Next(&r)) {
      m.builder.OnRecord(*r);
      if (m.tap) m.tap(*r);
    } else {
      m.builder.Finish(m.reader->end());
      m.done = true;
    }
  }
  if (m.ready.empty()) return false;
  *out = std::move(m.ready.front());
  m.ready.pop_front();
  return true;
}

const NodeIndex& NodeIndexStream::progress() const { return impl_->progress; }
uint64_t NodeIndexStream::last_start_ts() const { return impl_->builder.last_start_ts(); }

wal::Result<NodeIndex> BuildNodeIndex(const std::string& node, const wal::WalLocation& wal_dir, RecordTap tap) {
  auto stream = NodeIndexStream::Open(node, wal_dir, std::move(tap));
  if (!stream.ok()) return stream.status();
  std::vector<CutOnNode> cuts;
  CutOnNode c;
  while ((*stream)->Next(&c)) cuts.push_back(std::move(c));
  NodeIndex index = (*stream)->progress();
  index.cuts = std::move(cuts);
  return index;
}

}  // namespace cut
