#include "tools/prune.h"

#include <iterator>
#include <map>

#include "app/inputs.h"
#include "app/retention.h"
#include "libwal/staged_output.h"
#include "tools/crash_hook.h"
#include "tools/cut_sources.h"
#include "tools/increments.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

using app::CutFate;
using app::CutName;
using app::NodePrune;

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

  app::RetentionPolicy policy;
  policy.keep_increments = o.keep_increments;
  policy.keep_base = o.keep_base;
  if (!o.before.empty()) {
    size_t first = 0;
    if (!SelectCut(report, o.before, output, &first, &code)) return code;
    policy.first_kept = first;
  }
  auto planned = app::PlanPrune(policy, o.dir, inputs, found.indexes, report, ignite);
  if (!planned.ok()) {
    output.Error("{}", planned.status().message());
    return ExitCodeOf(planned.status(), Step::kInputs);
  }
  const app::PrunePlan& plan = *planned;
  const std::vector<CutFate>& fates = plan.fates;
  const std::vector<NodePrune>& nodes = plan.nodes;

  int result = kExitOk;
  bool applied = false;
  uint64_t done = 0;
  if (o.apply) {
    std::vector<std::string> refusals;
    if (plan.any_now && !plan.any_after && plan.newest_lost) {
      refusals.push_back(fmt::format("it would leave no restorable cut ({} is the latest it makes unrestorable)",
                                     CutName(report.cuts[fates[*plan.newest_lost].index])));
    }
    if (!report.problems.empty()) {
      refusals.push_back(fmt::format("{}: {}", report.problems[0].node, report.problems[0].detail));
    }
    if (!refusals.empty() && !o.force) {
      for (const auto& r : refusals) output.Error("refusing to prune: {}", r);
      output.Hint("--force prunes anyway");
      result = kExitProblems;
    } else {
      const wal::Status s =
          app::ApplyPrune(plan, o.move_to, o.cancellable ? o.cancellable() : nullptr, BeforeRemoval, &done);
      if (!s.ok()) {
        output.Error("{}", s.message());
        // Whatever stopped it (a file that would be overwritten, the WAL's own folder named),
        // the WAL was being changed: 3, or 130 for a signal.
        return s.code() == wal::StatusCode::kCancelled ? kExitInterrupted : kExitUnreadable;
      }
      applied = true;
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

}  // namespace tools
