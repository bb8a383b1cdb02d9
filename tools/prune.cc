#include "tools/prune.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>

#include "app/inputs.h"
#include "libwal/file_io.h"
#include "libwal/staged_output.h"
#include "tools/crash_hook.h"
#include "tools/cut_sources.h"
#include "tools/increments.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

namespace fs = std::filesystem;

// A segment file the prune would remove.
struct Doomed {
  wal::SegmentFile file;
  uint64_t bytes = 0;
};

struct NodePrune {
  std::string node;
  wal::WalLocation wal;
  std::optional<uint64_t> keep_from;  // the first segment kept (none: the WAL has no segment)
  std::string why;                    // what keeps that segment
  std::vector<Doomed> files;          // oldest first
  uint64_t bytes = 0;
};

// One cut of the report, as the prune sees it.
struct CutFate {
  size_t index = 0;  // in report.cuts
  bool kept = false;
  bool restorable = false;  // now: its base and every segment of its range present
  std::string not_restorable;
  bool restorable_after = false;
  std::vector<std::pair<std::string, uint64_t>> from;  // per node: the segment its range begins at
};

std::string CutName(const cut::CutReport& c) {
  std::string s = "cut " + c.id.ToString();
  if (c.increment) s += fmt::format(" (increment {} of \"{}\")", *c.increment, c.base);
  return s;
}

// The first cut the policy keeps (every cut from it on is kept); report.cuts.size()
// when it keeps none. Prints a usage error and returns false for a policy that names
// what is not there.
bool FirstKept(const PruneOptions& o, const cut::ClusterReport& report, const std::vector<CutFate>& fates,
               const std::vector<cut::NodeIndex>& indexes, Output& output, size_t* first, int* code) {
  const size_t n = report.cuts.size();
  *first = n;
  if (!o.before.empty()) return SelectCut(report, o.before, output, first, code);
  if (!o.keep_base.empty()) {
    bool in_wal = false;
    for (const auto& idx : indexes) {
      for (const auto& s : idx.snapshots) in_wal |= s.name == o.keep_base;
    }
    if (!in_wal) {
      output.Error("--keep-base: no ClusterSnapshotRecord of \"{}\" in the WALs", o.keep_base);
      *code = kExitUsage;
      return false;
    }
    for (size_t i = 0; i < n; ++i) {
      if (report.cuts[i].base == o.keep_base) {
        *first = i;
        break;
      }
    }
    return true;
  }
  if (o.keep_increments) {
    uint32_t seen = 0;
    for (size_t i = n; i-- > 0;) {
      if (!fates[i].restorable) continue;
      *first = i;
      if (++seen == *o.keep_increments) break;
    }
    return true;
  }
  // No policy: every restorable cut is kept.
  for (size_t i = 0; i < n; ++i) {
    if (fates[i].restorable) {
      *first = i;
      break;
    }
  }
  return true;
}

// The latest ClusterSnapshotRecord of `base` on the node, at or before `at`.
std::optional<wal::Pointer> BaseRecord(const cut::NodeIndex& idx, const std::string& base, const wal::Pointer& at) {
  std::optional<wal::Pointer> best;
  for (const auto& s : idx.snapshots) {
    if (s.name == base && !(at < s.at) && (!best || *best < s.at)) best = s.at;
  }
  return best;
}

// Moves `from` into directory `to_dir` under the same name: a hard link where the two
// share a file system, else a copy (fsynced, then renamed into place); then `from` is
// removed. A file already there with the same bytes (a move cut short) counts as moved;
// one with other bytes is never overwritten.
wal::Status MoveFile(const std::string& from, const std::string& to_dir) {
  const std::string name = fs::path(from).filename().string();
  const std::string to = to_dir + "/" + name;
  if (::link(from.c_str(), to.c_str()) != 0) {
    const int e = errno;
    // The destination folder is the WAL's own (through a link): "to" is "from", and removing
    // it would lose the file. (A hard link left by a move cut short is in another folder.)
    struct stat from_st {
    }, to_st{};
    const std::string from_dir = wal::ParentOf(from);
    if (e == EEXIST && ::stat(from_dir.c_str(), &from_st) == 0 && ::stat(to_dir.c_str(), &to_st) == 0 &&
        from_st.st_dev == to_st.st_dev && from_st.st_ino == to_st.st_ino) {
      return wal::Status::InvalidArgument(
          fmt::format("\"{}\" is the WAL's own folder \"{}\": nothing moved", to_dir, from_dir));
    }
    if (e == EEXIST) {
      auto a = wal::ReadFileToString(from, UINT64_MAX);
      auto b = wal::ReadFileToString(to, UINT64_MAX);
      if (!a.ok()) return a.status();
      if (!b.ok()) return b.status();
      if (*a != *b) {
        return wal::Status::AlreadyExists(
            fmt::format("\"{}\" exists with other bytes than \"{}\": not overwritten", to, from));
      }
    } else if (e == EXDEV || e == EPERM || e == ENOTSUP || e == EMLINK) {
      auto bytes = wal::ReadFileToString(from, UINT64_MAX);
      if (!bytes.ok()) return bytes.status();
      const std::string partial = to + ".partial";
      ::unlink(partial.c_str());  // a copy cut short by a crash
      wal::Status w = wal::WriteNewFileSynced(partial, *bytes);
      struct stat st {};
      if (w.ok() && ::stat(from.c_str(), &st) == 0 && ::chmod(partial.c_str(), st.st_mode & 07777) != 0) {
        w = wal::Status::IoError(fmt::format("\"{}\": {}", partial, std::strerror(errno)));
      }
      // link, not rename: a file that appeared under the name meanwhile is never replaced.
      if (w.ok() && ::link(partial.c_str(), to.c_str()) != 0) {
        w = errno == EEXIST ? wal::Status::AlreadyExists(
                                  fmt::format("\"{}\" appeared while \"{}\" was copied: not overwritten", to, from))
                            : wal::Status::IoError(fmt::format("\"{}\": {}", to, std::strerror(errno)));
      }
      ::unlink(partial.c_str());
      if (!w.ok()) return w;
    } else {
      return wal::Status::IoError(fmt::format("\"{}\" to \"{}\": {}", from, to, std::strerror(e)));
    }
  }
  WAL_RETURN_IF_ERROR(wal::SyncDirectory(to_dir));
  if (::unlink(from.c_str()) != 0) return wal::Status::IoError(fmt::format("\"{}\": {}", from, std::strerror(errno)));
  return wal::Status::Ok();
}

// Removes (or moves) each node's files, oldest first, fsyncing the directory after each
// (a file system may otherwise keep a later removal and lose an earlier one): a crash
// leaves every WAL whole from some segment on, and the next run goes on.
int Apply(const PruneOptions& o, const std::vector<NodePrune>& nodes, Output& output, uint64_t* done_files) {
  const std::atomic<bool>* stop = o.cancellable ? o.cancellable() : nullptr;
  for (const auto& n : nodes) {
    if (n.files.empty()) continue;
    std::string to_dir;
    if (!o.move_to.empty()) {
      to_dir = o.move_to + "/" + n.node;
      std::error_code ec;
      const bool created = fs::create_directories(to_dir, ec);
      if (ec) {
        output.Error("--move-to: \"{}\": {}", to_dir, ec.message());
        return kExitUnreadable;
      }
      // A new node folder must survive a crash before any file is moved into it.
      wal::Status s = created ? wal::SyncDirectory(o.move_to) : wal::Status::Ok();
      if (s.ok() && created) s = wal::SyncDirectory(wal::ParentOf(o.move_to));
      if (!s.ok()) {
        output.Error("--move-to: {}", s.message());
        return kExitUnreadable;
      }
    }
    for (const auto& d : n.files) {
      if (stop != nullptr && stop->load()) {
        output.Error(
            "prune stopped by a signal after {} file(s); every WAL is whole from its first segment on, and "
            "the same command goes on",
            *done_files);
        return kExitInterrupted;
      }
      BeforeRemoval();
      wal::Status s = wal::Status::Ok();
      if (to_dir.empty()) {
        if (::unlink(d.file.path.c_str()) != 0 && errno != ENOENT) {
          s = wal::Status::IoError(fmt::format("\"{}\": {}", d.file.path, std::strerror(errno)));
        }
      } else {
        s = MoveFile(d.file.path, to_dir);
      }
      if (!s.ok()) {
        output.Error("{}: {}", n.node, s.message());
        return kExitUnreadable;
      }
      if (s = wal::SyncDirectory(wal::ParentOf(d.file.path)); !s.ok()) {
        output.Error("{}: {}", n.node, s.message());
        return kExitUnreadable;
      }
      ++*done_files;
    }
  }
  return kExitOk;
}

void PrintText(const PruneOptions& o, const cut::ClusterReport& report, const std::vector<NodePrune>& nodes,
               const std::vector<CutFate>& fates, bool ignite, bool applied, fmt::memory_buffer* b) {
  auto out = std::back_inserter(*b);
  uint64_t files = 0, bytes = 0;
  for (const auto& n : nodes) {
    files += n.files.size();
    bytes += n.bytes;
    if (n.keep_from) {
      fmt::format_to(out, "{}: {} {} segment file(s), {}; keeps segments from {} on: {}\n", n.node,
                     applied ? (o.move_to.empty() ? "removed" : "moved") : "would remove", n.files.size(),
                     FormatBytes(n.bytes), *n.keep_from, n.why);
    } else {
      fmt::format_to(out, "{}: no segment file\n", n.node);
    }
    for (const auto& d : n.files) fmt::format_to(out, "  {}  {}\n", d.file.path, d.bytes);
  }
  for (const auto& f : fates) {
    const auto& c = report.cuts[f.index];
    if (c.status != cut::CutStatus::kConsistent) continue;
    std::string state;
    if (!f.restorable) {
      state = "not restorable: " + f.not_restorable;
    } else if (f.restorable_after) {
      state = "restorable";
    } else {
      state = applied ? "no longer restorable" : "restorable now, not after";
    }
    fmt::format_to(out, "{}: {}{}\n", CutName(c), f.kept ? "kept, " : "", state);
  }
  fmt::format_to(out, "{} segment file(s), {} {}\n", files, FormatBytes(bytes),
                 applied ? (o.move_to.empty() ? "removed" : "moved to " + o.move_to)
                         : (ignite ? "that no kept increment needs (Apache Ignite's archive: report only)"
                                   : "would be removed (--apply removes them)"));
}

void PrintJson(const PruneOptions& o, const cut::ClusterReport& report, const std::vector<NodePrune>& nodes,
               const std::vector<CutFate>& fates, bool ignite, bool applied, fmt::memory_buffer* b) {
  JsonWriter j(b);
  uint64_t files = 0, bytes = 0;
  j.BeginObject().Field("schema", 1).Field("format", ignite ? "ignite" : "walcut").Field("applied", applied);
  j.Key("moved_to");
  if (o.move_to.empty()) {
    j.Null();
  } else {
    j.String(o.move_to);
  }
  j.Key("nodes").BeginArray();
  for (const auto& n : nodes) {
    j.BeginObject().Field("node", n.node).Key("keep_from");
    if (n.keep_from) {
      j.Uint(*n.keep_from);
    } else {
      j.Null();
    }
    j.Field("why", n.why).Field("bytes", n.bytes).Key("files").BeginArray();
    for (const auto& d : n.files) {
      j.BeginObject().Field("path", d.file.path).Field("segment", d.file.index).Field("bytes", d.bytes).EndObject();
    }
    j.EndArray().EndObject();
    files += n.files.size();
    bytes += n.bytes;
  }
  j.EndArray().Key("cuts").BeginArray();
  for (const auto& f : fates) {
    const auto& c = report.cuts[f.index];
    j.BeginObject().Field("id", c.id.ToString()).Field("status", cut::CutStatusName(c.status));
    j.Key("increment");
    if (c.increment) {
      j.Uint(*c.increment);
    } else {
      j.Null();
    }
    j.Field("base", c.base).Field("kept", f.kept).Field("restorable", f.restorable);
    j.Field("restorable_after", f.restorable_after);
    if (!f.restorable) j.Field("not_restorable", f.not_restorable);
    j.EndObject();
  }
  j.EndArray().Field("files", files).Field("bytes", bytes).EndObject();
  b->push_back('\n');
}

struct PrunePlan {
  std::vector<CutFate> fates;
  std::vector<NodePrune> nodes;
  bool any_now = false, any_after = false;  // some cut restorable now, and after the prune
  const CutFate* newest_lost = nullptr;     // the latest cut the prune makes unrestorable
};

// The prune's plan of the cuts `found` in `o.dir` under the policy of `o`: each cut's fate
// and each node's files. Prints an error and returns false (the exit code in *code) for a
// policy that names what is not there, or a WAL that cannot be listed.
bool PlanPrune(const PruneOptions& o, const app::WalInputs& inputs, const std::vector<cut::NodeIndex>& indexes,
               const cut::ClusterReport& report, bool ignite, Output& output, PrunePlan* plan, int* code) {
  // Which cuts are restorable now, and where each node's range of each begins.
  std::vector<CutFate>& fates = plan->fates;
  fates.resize(report.cuts.size());
  const auto restorable = RestorableCuts(o.dir, inputs, indexes, report);
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    fates[i].index = i;
    if (!restorable) continue;
    fates[i].restorable = (*restorable)[i].ok;
    fates[i].not_restorable = (*restorable)[i].why;
    fates[i].from = (*restorable)[i].from;
  }
  size_t first = report.cuts.size();
  if (!FirstKept(o, report, fates, indexes, output, &first, code)) return false;
  for (size_t i = first; i < fates.size(); ++i) fates[i].kept = true;

  // Per node: the first segment kept is the earliest that a kept restorable cut's range
  // begins at, the latest base snapshot's record (later increments need it), the base
  // --keep-base names, and the live tail (the last segment file).
  std::vector<NodePrune>& nodes = plan->nodes;
  for (size_t k = 0; k < indexes.size(); ++k) {
    const cut::NodeIndex& idx = indexes[k];
    NodePrune n;
    n.node = idx.node;
    n.wal = inputs.nodes[k].wal_dir;
    auto files = wal::ListSegments(n.wal);
    if (!files.ok()) {
      output.Error("{}: {}", idx.node, files.status().message());
      *code = kExitUnreadable;
      return false;
    }
    if (files->empty()) {
      nodes.push_back(std::move(n));
      continue;
    }
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
    if (!o.keep_base.empty()) {
      if (auto at = BaseRecord(idx, o.keep_base, wal::Pointer{UINT64_MAX, UINT32_MAX})) {
        need(at->segment, fmt::format("the base snapshot \"{}\"", o.keep_base));
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
    nodes.push_back(std::move(n));
  }
  // A cut stays restorable when every node keeps the segment its range begins at (an
  // Ignite cut is replayed from segment 0).
  bool& any_now = plan->any_now;
  bool& any_after = plan->any_after;
  for (auto& f : fates) {
    if (!f.restorable) continue;
    f.restorable_after = true;
    for (const auto& [node, seg] : f.from) {
      for (const auto& n : nodes) {
        if (n.node == node && !n.files.empty() && n.keep_from && seg < *n.keep_from) f.restorable_after = false;
      }
    }
    any_now = true;
    any_after |= f.restorable_after;
    if (!f.restorable_after) plan->newest_lost = &f;
  }

  return true;
}

}  // namespace

int RunPrune(const PruneOptions& o, Output& output) {
  auto resolved = app::ResolveWalInputs({o.dir});
  if (!resolved.ok()) {
    output.Error("{}", resolved.status().message());
    return ExitCodeOf(resolved.status(), Step::kInputs);
  }
  std::map<std::string, wal::WalLocation> ignite_wals;
  for (const auto& in : resolved->nodes) {
    if (in.wal_dir.empty()) {
      output.Error("prune: {} is a single segment file: prune reads whole WALs (a cluster directory)", in.node);
      return kExitUsage;
    }
    if (app::IsIgniteInput(in)) ignite_wals[in.node] = in.wal_dir;
  }
  const bool ignite = !ignite_wals.empty();
  if (ignite && ignite_wals.size() != resolved->nodes.size()) {
    output.Error("prune: \"{}\" mixes Apache Ignite's WAL with walcut's", o.dir);
    return kExitUsage;
  }
  if (ignite && o.apply) {
    output.Error(
        "prune --apply: Apache Ignite's WAL archive is Ignite's to remove (walcut never writes into it); "
        "without --apply, prune reports the archive files no kept increment needs");
    return kExitUsage;
  }
  // A --move-to that could not be made or written in fails now, not after every WAL is read.
  if (o.apply && !o.move_to.empty()) {
    if (wal::Status s = wal::CanWriteInto(o.move_to); !s.ok()) {
      output.Error("--move-to: {}", s.message());
      return kExitUnreadable;
    }
  }
  WalCheck how;
  how.progress = "finding the cuts";
  DirCuts found;
  int code = kExitOk;
  if (!CheckDir(o.dir, how, output, &found, &code)) return code;
  const app::WalInputs& inputs = found.inputs;
  const cut::ClusterReport& report = found.report;
  if (!ignite && !inputs.cluster) {
    output.Error("\"{}\" has no cluster.json: prune needs a cluster directory", o.dir);
    return kExitUnreadable;
  }
  PrintNodeProblems(report, output);

  PrunePlan plan;
  if (!PlanPrune(o, inputs, found.indexes, report, ignite, output, &plan, &code)) return code;
  const std::vector<CutFate>& fates = plan.fates;
  const std::vector<NodePrune>& nodes = plan.nodes;
  const bool any_now = plan.any_now, any_after = plan.any_after;
  const CutFate* newest_lost = plan.newest_lost;

  int result = kExitOk;
  bool applied = false;
  uint64_t done = 0;
  if (o.apply) {
    std::vector<std::string> refusals;
    if (any_now && !any_after && newest_lost != nullptr) {
      refusals.push_back(fmt::format("it would leave no restorable cut ({} is the latest it makes unrestorable)",
                                     CutName(report.cuts[newest_lost->index])));
    }
    if (!report.problems.empty()) {
      refusals.push_back(fmt::format("{}: {}", report.problems[0].node, report.problems[0].detail));
    }
    if (!refusals.empty() && !o.force) {
      for (const auto& r : refusals) output.Error("refusing to prune: {}", r);
      output.Hint("--force prunes anyway");
      result = kExitProblems;
    } else {
      result = Apply(o, nodes, output, &done);
      applied = result == kExitOk;
      if (!applied) return result;
    }
  }
  if (!o.quiet) {
    fmt::memory_buffer b;
    if (o.json) {
      PrintJson(o, report, nodes, fates, ignite, applied, &b);
    } else {
      PrintText(o, report, nodes, fates, ignite, applied, &b);
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return result;
}

std::optional<PruneEstimate> EstimatePrune(const std::string& dir, const app::WalInputs& inputs,
                                           const std::vector<cut::NodeIndex>& indexes,
                                           const cut::ClusterReport& report) {
  if (inputs.nodes.empty() || dir.empty()) return std::nullopt;
  bool ignite = false;
  for (const auto& in : inputs.nodes) {
    if (in.wal_dir.empty() || !in.ignite_snapshot.empty()) return std::nullopt;  // a file, or a snapshot's copy
    ignite |= app::IsIgniteInput(in);
  }
  if (!ignite && !inputs.cluster) return std::nullopt;
  PruneOptions o;
  o.dir = dir;
  StringSink discard;  // the default policy prints nothing; a listing error only drops the estimate
  Output quiet{&discard, &discard};
  PrunePlan plan;
  int code = kExitOk;
  if (!PlanPrune(o, inputs, indexes, report, ignite, quiet, &plan, &code)) return std::nullopt;
  PruneEstimate e;
  for (const auto& n : plan.nodes) {
    e.files += n.files.size();
    e.bytes += n.bytes;
  }
  e.leaves_restorable = !plan.any_now || plan.any_after;
  return e;
}

}  // namespace tools
