#include "app/retention.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "app/restore_plan.h"
#include "libwal/file_io.h"

namespace app {
namespace {

namespace fs = std::filesystem;

// The first cut the policy keeps (every cut from it on is kept); report.cuts.size() when
// it keeps none.
wal::Result<size_t> FirstKept(const RetentionPolicy& policy, const cut::ClusterReport& report,
                              const std::vector<CutFate>& fates, const std::vector<cut::NodeIndex>& indexes) {
  const size_t n = report.cuts.size();
  if (policy.first_kept) return *policy.first_kept;
  if (!policy.keep_base.empty()) {
    bool in_wal = false;
    for (const auto& idx : indexes) {
      for (const auto& s : idx.snapshots) in_wal |= s.name == policy.keep_base;
    }
    if (!in_wal) {
      return wal::Status::InvalidArgument(
          fmt::format("--keep-base: no ClusterSnapshotRecord of \"{}\" in the WALs", policy.keep_base));
    }
    for (size_t i = 0; i < n; ++i) {
      if (report.cuts[i].base == policy.keep_base) return i;
    }
    return n;
  }
  size_t first = n;
  if (policy.keep_increments) {
    uint32_t seen = 0;
    for (size_t i = n; i-- > 0;) {
      if (!fates[i].restorable) continue;
      first = i;
      if (++seen == *policy.keep_increments) break;
    }
    return first;
  }
  // No policy: every restorable cut is kept.
  for (size_t i = 0; i < n; ++i) {
    if (fates[i].restorable) return i;
  }
  return first;
}

// The latest ClusterSnapshotRecord of `base` on the node, at or before `at`.
std::optional<wal::Pointer> BaseRecord(const cut::NodeIndex& idx, const std::string& base, const wal::Pointer& at) {
  std::optional<wal::Pointer> best;
  for (const auto& s : idx.snapshots) {
    if (s.name == base && !(at < s.at) && (!best || *best < s.at)) best = s.at;
  }
  return best;
}

// The node's files before the first segment any kept cut needs: the earliest that a kept
// restorable cut's range begins at, the latest base snapshot's record (later increments
// need it), the base --keep-base names, and the live tail (the last segment file).
wal::Result<NodePrune> PlanNode(const RetentionPolicy& policy, const WalInput& in, const cut::NodeIndex& idx,
                                const cut::ClusterReport& report, const std::vector<CutFate>& fates, bool ignite) {
  NodePrune n;
  n.node = idx.node;
  n.wal = in.wal_dir;
  auto files = wal::ListSegments(n.wal);
  if (!files.ok()) return wal::Status::IoError(fmt::format("{}: {}", idx.node, files.status().message()));
  if (files->empty()) return n;
  uint64_t keep = files->back().index;
  n.why = "the live tail";
  auto need = [&](uint64_t segment, std::string why) {
    if (segment < keep) {
      keep = segment;
      n.why = std::move(why);
    }
  };
  for (const auto& f : fates) {
    if (!f.kept || !f.restorable) continue;
    for (const auto& [node, seg] : f.from) {
      if (node == idx.node) need(seg, "the base of " + CutName(report.cuts[f.index]));
    }
  }
  const cut::BaseSnapshot* latest = nullptr;
  for (const auto& s : idx.snapshots) {
    if (latest == nullptr || latest->at < s.at) latest = &s;
  }
  if (latest != nullptr) need(latest->at.segment, fmt::format("the latest base snapshot, \"{}\"", latest->name));
  if (!policy.keep_base.empty()) {
    if (auto at = BaseRecord(idx, policy.keep_base, wal::Pointer{UINT64_MAX, UINT32_MAX})) {
      need(at->segment, fmt::format("the base snapshot \"{}\"", policy.keep_base));
    }
  }
  if (idx.snapshots.empty()) need(files->front().index, "no base snapshot in its WAL: nothing of it is pruned");
  n.keep_from = keep;
  // Of Ignite's WAL, only the archive folder's files (its work files are a ring Ignite
  // reuses).
  const std::string archive = ignite && n.wal.dirs.size() > 1 ? n.wal.dirs.front() : std::string();
  for (const auto& f : *files) {
    if (f.index >= keep) break;
    if (ignite && (archive.empty() || wal::ParentOf(f.path) != archive)) continue;
    struct stat st {};
    const uint64_t size = ::stat(f.path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    n.files.push_back({f, size});
    n.bytes += size;
  }
  return n;
}

// A new node folder of --move-to, made to survive a crash before any file is moved into it.
wal::Status MakeMoveDir(const std::string& move_to, const std::string& to_dir) {
  std::error_code ec;
  const bool created = fs::create_directories(to_dir, ec);
  if (ec) return wal::Status::IoError(fmt::format("--move-to: \"{}\": {}", to_dir, ec.message()));
  wal::Status s = created ? wal::SyncDirectory(move_to) : wal::Status::Ok();
  if (s.ok() && created) s = wal::SyncDirectory(wal::ParentOf(move_to));
  if (!s.ok()) return wal::Status::IoError(fmt::format("--move-to: {}", s.message()));
  return wal::Status::Ok();
}

}  // namespace

std::string CutName(const cut::CutReport& c) {
  std::string s = "cut " + c.id.ToString();
  if (c.increment) s += fmt::format(" (increment {} of \"{}\")", *c.increment, c.base);
  return s;
}

wal::Result<PrunePlan> PlanPrune(const RetentionPolicy& policy, const std::string& dir, const WalInputs& inputs,
                                 const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report,
                                 bool ignite) {
  PrunePlan plan;
  // Which cuts are restorable now, and where each node's range of each begins.
  std::vector<CutFate>& fates = plan.fates;
  fates.resize(report.cuts.size());
  const auto restorable = RestorableCuts(dir, inputs, indexes, report);
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    fates[i].index = i;
    if (!restorable) continue;
    fates[i].restorable = (*restorable)[i].ok;
    fates[i].not_restorable = (*restorable)[i].why;
    fates[i].from = (*restorable)[i].from;
  }
  auto first = FirstKept(policy, report, fates, indexes);
  if (!first.ok()) return first.status();
  for (size_t i = *first; i < fates.size(); ++i) fates[i].kept = true;
  for (size_t k = 0; k < indexes.size(); ++k) {
    auto n = PlanNode(policy, inputs.nodes[k], indexes[k], report, fates, ignite);
    if (!n.ok()) return n.status();
    plan.nodes.push_back(std::move(n).value());
  }
  // A cut stays restorable when every node keeps the segment its range begins at (an
  // Ignite cut is replayed from segment 0).
  for (size_t i = 0; i < fates.size(); ++i) {
    CutFate& f = fates[i];
    if (!f.restorable) continue;
    f.restorable_after = true;
    for (const auto& [node, seg] : f.from) {
      for (const auto& n : plan.nodes) {
        if (n.node == node && !n.files.empty() && n.keep_from && seg < *n.keep_from) f.restorable_after = false;
      }
    }
    plan.any_now = true;
    plan.any_after |= f.restorable_after;
    if (!f.restorable_after) plan.newest_lost = i;
  }
  return plan;
}

wal::Status ApplyPrune(const PrunePlan& plan, const std::string& move_to, const std::atomic<bool>* stop,
                       const std::function<void()>& before_each, uint64_t* done) {
  for (const auto& n : plan.nodes) {
    if (n.files.empty()) continue;
    std::string to_dir;
    if (!move_to.empty()) {
      to_dir = move_to + "/" + n.node;
      WAL_RETURN_IF_ERROR(MakeMoveDir(move_to, to_dir));
    }
    for (const auto& d : n.files) {
      if (stop != nullptr && stop->load()) {
        return wal::Status::Cancelled(
            fmt::format("prune stopped by a signal after {} file(s); every WAL is whole from its first segment on, "
                        "and the same command goes on",
                        *done));
      }
      if (before_each) before_each();
      wal::Status s = wal::Status::Ok();
      if (to_dir.empty()) {
        if (::unlink(d.file.path.c_str()) != 0 && errno != ENOENT) {
          s = wal::Status::IoError(fmt::format("\"{}\": {}", d.file.path, std::strerror(errno)));
        }
      } else {
        s = wal::MoveFileInto(d.file.path, to_dir);
      }
      if (s.ok()) s = wal::SyncDirectory(wal::ParentOf(d.file.path));
      if (!s.ok()) return wal::Status(s.code(), fmt::format("{}: {}", n.node, s.message()));
      ++*done;
    }
  }
  return wal::Status::Ok();
}

std::optional<PruneEstimate> EstimatePrune(const std::string& dir, const WalInputs& inputs,
                                           const std::vector<cut::NodeIndex>& indexes,
                                           const cut::ClusterReport& report) {
  if (inputs.nodes.empty() || dir.empty()) return std::nullopt;
  bool ignite = false;
  for (const auto& in : inputs.nodes) {
    if (in.wal_dir.empty() || !in.ignite_snapshot.empty()) return std::nullopt;  // a file, or a snapshot's copy
    ignite |= IsIgniteInput(in);
  }
  if (!ignite && !inputs.cluster) return std::nullopt;
  auto plan = PlanPrune(RetentionPolicy{}, dir, inputs, indexes, report, ignite);
  if (!plan.ok()) return std::nullopt;
  PruneEstimate e;
  for (const auto& n : plan->nodes) {
    e.files += n.files.size();
    e.bytes += n.bytes;
  }
  e.leaves_restorable = !plan->any_now || plan->any_after;
  return e;
}

}  // namespace app
