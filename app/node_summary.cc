#include "app/node_summary.h"

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "libwal/file_io.h"

namespace app {
namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The state `path`.resume holds for `path`, and `path`'s bytes; or why `path` is to be
// written whole (empty on a first run, when neither file exists).
std::string LoadResume(const std::string& path, cut::SummaryFormat format, const std::string& node,
                       std::optional<cut::ResumeState>* from, std::string* old) {
  const std::string state_path = path + ".resume";
  if (!Exists(path) && !Exists(state_path)) return {};
  auto state = wal::ReadFileToString(state_path, cut::kMaxSummaryBytes);
  if (!state.ok()) return state.status().message();
  auto summary = wal::ReadFileToString(path, cut::kMaxSummaryBytes);
  if (!summary.ok()) return summary.status().message();
  auto resume = cut::DecodeResumeState(*state, *summary, state_path);
  if (!resume.ok()) return resume.status().message();
  if (cut::IsBinarySummary(*summary) != (format == cut::SummaryFormat::kBinary)) {
    return fmt::format("\"{}\" is in the other format", path);
  }
  auto stream = cut::SummaryStream::Open(path);  // its node's part only
  if (!stream.ok()) return stream.status().message();
  if ((*stream)->node().node != node) {
    return fmt::format("\"{}\" is node {}'s summary, not node {}'s", path, (*stream)->node().node, node);
  }
  *from = std::move(resume).value();
  *old = std::move(summary).value();
  return {};
}

NodeSummary Unreadable(const WalInput& in, std::string why, cut::SummaryFormat format) {
  NodeSummary s;
  s.index.node = in.node;
  s.index.open_error = std::move(why);
  const std::optional<cut::NodeKept> kept = KeptIncrementsOfNode(in);
  s.bytes = cut::EncodeSummary(s.index, format, kept ? &*kept : nullptr);
  s.damaged = true;
  return s;
}

// The next state: the cuts before its checkpoint are kept as they are next time.
cut::ResumeState NextState(const cut::IndexCheckpoint& checkpoint, const std::optional<cut::ResumeState>& from,
                           const cut::NodeIndex& index, uint64_t kept) {
  cut::ResumeState next;
  next.checkpoint = checkpoint;
  const uint64_t fresh = next.checkpoint.cuts_before - kept;  // of index.cuts
  next.kept_last_start = from ? from->kept_last_start : 0;
  for (uint64_t i = 0; i < fresh; ++i) {
    if (index.cuts[i].has_start) next.kept_last_start = std::max(next.kept_last_start, index.cuts[i].start_ts);
  }
  if (fresh > 0) {
    next.last_kept = index.cuts[fresh - 1];
  } else if (from) {
    next.last_kept = from->last_kept;
  }
  return next;
}

}  // namespace

NodeSummary SummarizeNode(const WalInput& in, cut::SummaryFormat format) {
  auto index = cut::BuildNodeIndex(in.node, in.wal_dir);
  if (!index.ok()) return Unreadable(in, index.status().message(), format);
  NodeSummary s;
  s.index = std::move(index).value();
  const std::optional<cut::NodeKept> kept = KeptIncrementsOfNode(in);
  s.bytes = cut::EncodeSummary(s.index, format, kept ? &*kept : nullptr);
  s.cuts = s.index.cuts.size();
  s.records_read = s.index.records;
  s.damaged = !s.index.read_errors.empty() || s.index.records == 0;
  return s;
}

wal::Result<NodeSummary> AppendToSummary(const WalInput& in, const std::string& path, cut::SummaryFormat format) {
  std::optional<cut::ResumeState> from;
  std::string old;
  std::string whole = LoadResume(path, format, in.node, &from, &old);
  wal::Result<std::unique_ptr<cut::NodeIndexStream>> stream = wal::Status::NotFound("");
  if (from) {
    stream = cut::NodeIndexStream::Resume(in.node, in.wal_dir, from->checkpoint, true);
    if (!stream.ok()) whole = stream.status().message();
  }
  if (!from || !stream.ok()) {
    from.reset();
    stream = cut::NodeIndexStream::Open(in.node, in.wal_dir, nullptr, true);
  }
  if (!stream.ok()) {
    NodeSummary s = Unreadable(in, stream.status().message(), format);
    s.whole_because = std::move(whole);
    return s;
  }
  NodeSummary s;
  s.whole_because = std::move(whole);
  const uint64_t kept = from ? from->checkpoint.cuts_before : 0;
  const uint64_t records_before = from ? (*stream)->progress().records : 0;
  cut::CutOnNode c;
  std::vector<cut::CutOnNode> cuts;  // those after `kept`
  while ((*stream)->Next(&c)) cuts.push_back(std::move(c));
  s.index = (*stream)->progress();
  s.index.cuts = std::move(cuts);
  // The metadata is read afresh each time: Ignite adds and removes increments' files.
  const std::optional<cut::NodeKept> metadata = KeptIncrementsOfNode(in);
  const cut::NodeKept* m = metadata ? &*metadata : nullptr;
  auto bytes = from ? cut::EncodeAppended(old, *from, s.index, path, m) : cut::EncodeSummary(s.index, format, m);
  if (!bytes.ok()) return bytes.status();
  s.bytes = std::move(bytes).value();
  s.cuts = kept + s.index.cuts.size();
  s.records_read = s.index.records - records_before;
  s.damaged = !s.index.read_errors.empty() || s.index.records == 0;
  s.state = NextState(*(*stream)->checkpoint(), from, s.index, kept);
  return s;
}

wal::Status WriteSummaryFiles(const std::string& path, const NodeSummary& summary) {
  wal::Status s = wal::WriteFileAtomically(path, summary.bytes);
  if (s.ok() && summary.state) {
    s = wal::WriteFileAtomically(path + ".resume", cut::EncodeResumeState(*summary.state, summary.bytes));
  }
  return s;
}

}  // namespace app
