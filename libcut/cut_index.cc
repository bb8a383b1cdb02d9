#include "libcut/cut_index.h"

#include <algorithm>
#include <deque>
#include <iterator>

#include <fmt/format.h>

#include "libcut/index_builder.h"
#include "libcut/varint_codec.h"

namespace cut {

void AddParticipants(CutOnNode& c, uint32_t tx, std::span<const uint16_t> nodes) {
  if (nodes.empty()) return;
  c.participants.push_back(
      {tx, static_cast<uint32_t>(c.participant_nodes.size()), static_cast<uint32_t>(nodes.size())});
  c.participant_nodes.insert(c.participant_nodes.end(), nodes.begin(), nodes.end());
}

// From the last cut back: the streaming check asks for the cut just read, among all the
// node's cuts so far (from the front, tens of thousands of cuts made it quadratic). A
// node's cut ids are unique (the index opens one state per id; the summary readers refuse
// an id twice), so the cut found is the one a search from the front finds.
const CutOnNode* FindCut(const NodeIndex& n, const wal::Uuid& id, size_t* pos) {
  for (size_t i = n.cuts.size(); i-- > 0;) {
    if (n.cuts[i].id == id) {
      if (pos) *pos = i;
      return &n.cuts[i];
    }
  }
  return nullptr;
}

Side SideOf(const CutOnNode& c, const wal::TxId& xid, const wal::Pointer& commit) {
  auto listed = [&](const std::vector<wal::TxId>& v) { return std::find(v.begin(), v.end(), xid) != v.end(); };
  return SideOfCommit(
      RegionOf(commit, c.start, c.finish), [&] { return listed(c.before); }, [&] { return listed(c.after); });
}

struct NodeIndexStream::Impl {
  NodeIndex progress;
  std::deque<CutOnNode> ready;
  IndexBuilder builder{&progress, &ready};
  std::unique_ptr<wal::WalReader> reader;
  RecordTap tap;
  // Read after the checkpoint: the WAL's last segment (every file of its index: a raw
  // segment and its .wal.zip are one segment).
  std::vector<wal::SegmentFile> last;
  bool want_checkpoint = false;
  std::optional<wal::Pointer> from_record;  // where the first reader begins (WalLocation)
  std::optional<IndexCheckpoint> checkpoint;
  std::optional<uint64_t> after_index;  // for the next reader's sequence check
  std::optional<wal::Uuid> node_id;     // the node the next reader's headers are held to
  wal::Pointer end;                     // just past the last record of the readers done
  uint64_t handed = 0;                  // cuts handed over
  bool done = false;
  bool may_stop = false;  // Open's `stop` was given

  void OpenReader(std::vector<wal::SegmentFile> files, bool more_follow) {
    wal::ReaderOptions options;
    // Many nodes are read at once: the pages of each segment go back as they are read.
    options.release_consumed = true;
    options.light = true;
    options.more_follow = more_follow;
    options.after_index = after_index;
    options.node_id = node_id;
    if (from_record) {  // the first reader only
      options.from = *from_record;
      options.from_is_record = true;
      from_record.reset();
    }
    after_index = files.back().index;
    reader = wal::WalReader::OpenFiles(std::move(files), options, [this](const wal::Issue& i) { builder.OnIssue(i); });
    builder.set_reader(reader.get());
  }

  // Splits `files` before the last segment when a checkpoint is wanted, and starts reading.
  // The checkpoint names that segment's index, so no file of it may be read before.
  void Start(std::vector<wal::SegmentFile> files) {
    if (want_checkpoint) {
      const uint64_t index = files.back().index;
      auto first =
          std::find_if(files.begin(), files.end(), [&](const wal::SegmentFile& f) { return f.index == index; });
      last.assign(std::make_move_iterator(first), std::make_move_iterator(files.end()));
      files.erase(first, files.end());
    }
    if (!files.empty()) OpenReader(std::move(files), want_checkpoint);
  }

  void EndOfReader() {
    if (reader != nullptr) {
      end = std::max(end, reader->end());
      if (reader->node_id()) node_id = reader->node_id();  // the first header's node
    }
    reader.reset();
  }

  void TakeCheckpoint() {
    IndexCheckpoint c;
    c.resume_index = last.front().index;
    c.after_index = after_index;
    c.cuts_before = handed;
    c.node_id = node_id;
    progress.end = end;  // saved as the state's; the reading shows it only at its end
    VarintWriter o;
    builder.Save(o);
    progress.end = {};
    c.state = std::move(o.s);
    checkpoint = std::move(c);
  }
};

NodeIndexStream::NodeIndexStream() : impl_(std::make_unique<Impl>()) {}
NodeIndexStream::~NodeIndexStream() = default;

wal::Result<std::unique_ptr<NodeIndexStream>> NodeIndexStream::Open(const std::string& node,
                                                                    const wal::WalLocation& wal_dir, RecordTap tap,
                                                                    bool checkpoint, std::optional<wal::Uuid> stop) {
  std::unique_ptr<NodeIndexStream> s(new NodeIndexStream());
  Impl* impl = s->impl_.get();
  impl->progress.node = node;
  if (stop) {
    impl->builder.StopAfterFinishOf(*stop);
    impl->may_stop = true;
  }
  impl->tap = std::move(tap);
  impl->want_checkpoint = checkpoint;
  impl->from_record = wal_dir.from_record;
  auto files = wal::ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  if (files->empty()) return wal::Status::NotFound(fmt::format("\"{}\" holds no WAL segment", wal_dir.ToString()));
  impl->Start(std::move(files).value());
  return s;
}

wal::Result<std::unique_ptr<NodeIndexStream>> NodeIndexStream::Resume(const std::string& node,
                                                                      const wal::WalLocation& wal_dir,
                                                                      const IndexCheckpoint& from, bool checkpoint) {
  std::unique_ptr<NodeIndexStream> s(new NodeIndexStream());
  Impl* impl = s->impl_.get();
  impl->want_checkpoint = checkpoint;
  VarintReader in(from.state.data(), from.state.size());
  impl->builder.Load(in);
  if (in.left() != 0) in.Fail("bytes after the state");
  if (!in.ok()) return wal::Status::Corruption(fmt::format("the saved reading of node {}: {}", node, in.error()));
  if (impl->progress.node != node) {
    return wal::Status::InvalidArgument(
        fmt::format("the saved reading is node {}'s, not node {}'s", impl->progress.node, node));
  }
  impl->end = impl->progress.end;
  impl->progress.end = {};
  impl->after_index = from.after_index;
  impl->node_id = from.node_id;
  impl->handed = from.cuts_before;
  auto files = wal::ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  std::vector<wal::SegmentFile> rest;
  for (auto& f : *files) {
    if (f.index >= from.resume_index) rest.push_back(std::move(f));
  }
  if (rest.empty() || rest.front().index != from.resume_index) {
    return wal::Status::NotFound(fmt::format("\"{}\" no longer holds segment {}, where the saved reading stopped",
                                             wal_dir.ToString(), from.resume_index));
  }
  impl->Start(std::move(rest));
  return s;
}

bool NodeIndexStream::Next(CutOnNode* out) {
  Impl& m = *impl_;
  const wal::Record* r = nullptr;
  while (m.ready.empty() && !m.done) {
    if (m.reader != nullptr && m.reader->Next(&r)) {
      m.builder.OnRecord(*r);
      if (m.tap) m.tap(*r);
      if (m.may_stop && m.builder.StopReached()) {
        m.EndOfReader();
        m.last.clear();
        m.builder.Finish(m.end);
        m.progress.stopped = true;
        m.done = true;
      }
      continue;
    }
    m.EndOfReader();
    if (!m.last.empty()) {
      m.TakeCheckpoint();
      m.OpenReader(std::move(m.last), false);
      m.last.clear();
      continue;
    }
    m.builder.Finish(m.end);
    m.done = true;
  }
  if (m.ready.empty()) return false;
  *out = std::move(m.ready.front());
  m.ready.pop_front();
  ++m.handed;
  return true;
}

const std::optional<IndexCheckpoint>& NodeIndexStream::checkpoint() const { return impl_->checkpoint; }

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
