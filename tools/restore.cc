#include "tools/restore.h"

#include <fmt/ranges.h>

#include "app/ignite_stores.h"
#include "app/inputs.h"
#include "app/restore_choice.h"
#include "app/restore_plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "libwal/segment_file.h"
#include "libwal/staged_output.h"
#include "libwal/wal_writer.h"
#include "recovery/ignite_restore.h"
#include "recovery/restore.h"
#include "recovery/restore_job.h"
#include "recovery/verify.h"
#include "tools/cache_names.h"
#include "tools/cut_sources.h"
#include "tools/json_writer.h"
#include "tools/progress.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

// What the options choose, for app/restore_choice.
app::RestoreChoice ChoiceOf(const RestoreOptions& o) {
  app::RestoreChoice c;
  c.cut = o.cut;
  c.increment = o.increment;
  c.latest = o.latest;
  c.snapshot = o.snapshot;
  c.nodes = o.nodes;
  c.caches = o.caches;
  c.partitions = o.partitions;
  return c;
}

// The cut the options name, among the report's cuts.
bool ChooseCut(const RestoreOptions& o, app::RestoreChoice choice, const cut::ClusterReport& report, uint64_t latest_ts,
               Output& output, size_t* index, int* code) {
  if (o.cut) return SelectCut(report, *o.cut, output, index, code);
  const uint64_t at = o.time ? ResolveTime(*o.time, latest_ts) : 0;
  if (o.time) choice.finished_by = at;
  const std::optional<size_t> found = app::ChooseConsistentCut(report, choice);
  if (!found) {
    const std::string of = o.snapshot.empty() ? "" : fmt::format(" of \"{}\"", o.snapshot);
    if (o.increment) {
      output.Error("no consistent cut is increment {}{}", *o.increment, of);
    } else if (o.time) {
      output.Error("no consistent cut{} finished at or before {} ({})", of, FormatIsoTime(at), o.time->text);
    } else {
      output.Error("no consistent cut{} to restore", of);
    }
    output.Hint("\"walcut cuts DIR\" lists the cuts and their statuses");
    *code = kExitProblems;
    return false;
  }
  *index = *found;
  if (o.time && !o.quiet && !o.json) {  // which cut the time chose, first (JSON: the plan's cut and finish_ts)
    const auto& c = report.cuts[*found];
    output.out->Write(fmt::format(
        "--time {}{} = {}: the latest consistent cut finished at or before it is {} (increment {} of \"{}\"), "
        "finished at {}\n",
        o.time->text, o.time->relative ? " from the WALs' latest time " + FormatIsoTime(latest_ts) : std::string(),
        FormatIsoTime(at), c.id.ToString(), c.increment.value_or(0), c.base, FormatIsoTime(c.finish_ts)));
  }
  return true;
}

// The WAL bytes each node's replay has reached, for the progress line.
class ReplayCounter {
 public:
  void Set(const std::string& node, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    done_[node] = bytes;
  }
  uint64_t MiB() {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t sum = 0;
    for (const auto& [node, bytes] : done_) sum += bytes;
    return sum >> 20;
  }

 private:
  std::mutex mu_;
  std::map<std::string, uint64_t> done_;
};

void PlanJson(const recovery::RestorePlan& plan, fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("dry_run", true).Field("cut", plan.cut.ToString());
  j.Field("increment", plan.increment).Field("base", plan.base).Key("nodes").BeginArray();
  for (const auto& n : plan.nodes) {
    j.BeginObject().Field("node", n.node).Field("base", n.base_dir).Field("from", n.from.ToString());
    if (!n.ignite_store.empty()) j.Field("snapshot", n.snapshot);
    j.Field("start", n.start.ToString()).Field("finish", n.finish.ToString());
    j.Field("before", n.before.size()).Field("after", n.after.size()).EndObject();
  }
  j.EndArray().Field("finish_ts", plan.finish_ts).EndObject();
  b->push_back('\n');
}

void PlanText(const recovery::RestorePlan& plan, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  fmt::format_to(it, "restore plan: cut {}, increment {} of \"{}\"\n", plan.cut.ToString(), plan.increment, plan.base);
  for (const auto& n : plan.nodes) {
    fmt::format_to(it,
                   "  {:<12} {} from {} to {} (Start {}), apply what committed before Start except {} "
                   "listed After, and {} listed Before after it\n",
                   n.node,
                   !n.ignite_store.empty()
                       ? fmt::format("base {} (Ignite's full snapshot '{}')", n.base_dir, n.snapshot)
                   : n.ignite ? std::string("no base (Ignite: its WAL from its first record)")
                              : "base " + n.base_dir,
                   n.from.ToString(), n.finish.ToString(), n.start.ToString(), n.after.size(), n.before.size());
  }
}

// The exit status (and message) of a restore that was not kept.
int RestoreFailed(const wal::Status& status, const RestoreOptions& o, Output& output) {
  switch (status.code()) {
    case wal::StatusCode::kAlreadyExists:
    case wal::StatusCode::kInvalidArgument: output.Error("{}", status.message()); return kExitUsage;
    case wal::StatusCode::kIoError: output.Error("{}", status.message()); return kExitUnreadable;
    case wal::StatusCode::kCancelled:
      output.Error("interrupted: nothing of \"{}\" was kept", o.out);
      return kExitInterrupted;
    default:
      if (!recovery::IsDisagreement(status)) {
        output.Error("{}", status.message());  // a node's replay failed: "restore of NODE failed: ..."
        return kExitProblems;
      }
      output.Error("refusing to keep the restore: {}", status.message());
      output.Hint("\"walcut restore --force\" keeps it, marked as such in restore.json");
      return kExitProblems;
  }
}

void OutcomeJson(const recovery::RestorePlan& plan, const recovery::RestoreOutcome& outcome, const std::string& out,
                 fmt::memory_buffer* b) {
  const recovery::RestoreManifest& manifest = outcome.manifest;
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("cut", plan.cut.ToString()).Field("increment", plan.increment);
  j.Field("base", plan.base).Field("output", out).Field("forced", manifest.forced).Key("nodes").BeginArray();
  for (size_t i = 0; i < manifest.nodes.size(); ++i) {
    const auto& r = manifest.nodes[i];
    j.BeginObject().Field("node", r.node).Field("txs_applied", r.txs_applied).Field("txs_skipped", r.txs_skipped);
    j.Field("entries", r.entries).Field("partitions", outcome.partitions[i]).Field("gaps_closed", r.gaps_closed);
    j.EndObject();
  }
  j.EndArray().Field("finish_ts", plan.finish_ts).EndObject();
  b->push_back('\n');
}

void OutcomeText(const recovery::RestorePlan& plan, const recovery::RestoreOutcome& outcome, const std::string& out,
                 fmt::memory_buffer* b) {
  const recovery::RestoreManifest& manifest = outcome.manifest;
  auto it = std::back_inserter(*b);
  std::string subset;
  auto list = [&](const char* what, const std::vector<uint32_t>& v) {
    if (v.empty()) return;
    subset += fmt::format("{}{} {}", subset.empty() ? ", only " : " and ", what, fmt::join(v, ", "));
  };
  list(manifest.only_caches.size() == 1 ? "cache" : "caches", manifest.only_caches);
  list(manifest.only_partitions.size() == 1 ? "partition" : "partitions", manifest.only_partitions);
  fmt::format_to(it, "restored cut {} (increment {} of \"{}\") into {}{}{}\n", plan.cut.ToString(), plan.increment,
                 plan.base, out, subset, manifest.forced ? " (kept with --force: the copies do not all agree)" : "");
  for (size_t i = 0; i < manifest.nodes.size(); ++i) {
    const auto& r = manifest.nodes[i];
    fmt::format_to(it, "  {:<12} {} transactions applied, {} skipped, {} entries, {} partitions, {} gaps closed\n",
                   r.node, r.txs_applied, r.txs_skipped, r.entries, outcome.partitions[i], r.gaps_closed);
  }
}

// Writes the restore of `plan` and reports it.
int WriteAndReport(const RestoreOptions& o, const recovery::RestorePlan& plan, const cut::ClusterInfo* cluster,
                   const std::vector<std::string>& binary_meta_dirs,
                   const std::map<uint32_t, app::IgniteCacheFacts>& ignite_caches, Output& output) {
  recovery::RestoreJob job;
  for (const auto& [id, f] : ignite_caches) {
    job.cache_names[id] = f.name;
    if (f.atomic) job.atomic_caches.insert(id);
  }
  job.out = o.out;
  job.jobs = o.jobs;
  job.force = o.force;
  job.only_nodes = o.nodes;
  job.only_caches = o.caches;
  job.only_partitions = o.partitions;
  job.binary_meta_dirs = binary_meta_dirs;
  job.cancel = o.cancellable ? o.cancellable() : nullptr;
  ReplayCounter replayed;
  job.progress = [&replayed](const std::string& node, uint64_t bytes) { replayed.Set(node, bytes); };
  auto outcome = [&] {
    Progress progress(output.progress, "restoring", std::max<uint64_t>(recovery::EstimateReplayBytes(plan) >> 20, 1),
                      "MiB of WAL replayed", [&replayed] { return replayed.MiB(); });
    return recovery::WriteRestore(plan, cluster, job);
  }();
  if (!outcome.ok()) return RestoreFailed(outcome.status(), o, output);
  for (const auto& w : outcome->warnings) output.Warning("{}", w);
  for (const auto& c : outcome->conflicts) {
    std::string nodes;
    for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
    output.Warning("kept with --force: {} cache {} partition {} [{}]: {}", recovery::ConflictKindName(c.kind), c.cache,
                   c.partition, nodes, c.detail);
  }
  if (o.quiet) return kExitOk;
  fmt::memory_buffer b;
  if (o.json) {
    OutcomeJson(plan, *outcome, o.out, &b);
  } else {
    OutcomeText(plan, *outcome, o.out, &b);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

}  // namespace

int RunRestore(const RestoreOptions& given, Output& output) {
  RestoreOptions o = given;
  // Apache Ignite's WAL (a work directory, a directory of them, ...): where each node's
  // WAL lies and its binary metadata.
  app::IgniteRestoreInputs ignite;
  std::map<uint32_t, app::IgniteCacheFacts> ignite_caches;
  std::vector<std::string> dirs{o.dir};
  dirs.insert(dirs.end(), o.more_dirs.begin(), o.more_dirs.end());
  if (auto resolved = app::ResolveWalInputs(dirs, true); resolved.ok()) {
    if (resolved->cluster_above) {
      output.Error("restore takes the cluster directory (\"{}\"), not a node of it", app::ParentOf(dirs[0]));
      output.Hint("--node NAME restores only that node");
      return kExitUsage;
    }
    // Ignite's caches, read once: their names for --cache, their facts for the restore.
    bool any_ignite = false;
    std::map<uint32_t, std::string> known;
    for (const auto& in : resolved->nodes) {
      if (!app::IsIgniteInput(in)) continue;
      any_ignite = true;
      for (auto& [id, f] : app::IgniteCachesOf(in)) {
        known.emplace(id, f.name);
        ignite_caches.emplace(id, std::move(f));
      }
    }
    if (!any_ignite) known = KnownCaches(*resolved, &any_ignite);
    if (!ResolveCacheNames(o.cache_names, known, any_ignite, o.dir, &o.caches, output)) {
      return kExitUsage;
    }
    if (wal::Status s = app::CheckSubset(ChoiceOf(o), *resolved, o.dir); !s.ok()) {
      output.Error("{}", s.message());
      return kExitUsage;
    }
    auto of = app::IgniteRestoreInputsOf(*resolved, o.dir, !o.more_dirs.empty());
    if (!of.ok()) {
      output.Error("{}", of.status().message());
      return kExitUsage;
    }
    ignite = std::move(of).value();
  }
  // An output that would be refused is refused now, not after every WAL is read.
  if (!o.dry_run) {
    if (wal::Status s = wal::StagedOutput::Check(o.out); !s.ok()) return RestoreFailed(s, o, output);
  }
  // The cuts found by the streaming check, keeping what the plan needs of each (its
  // records' places and its sets).
  WalCheck how;
  const app::RestoreChoice choice = ChoiceOf(o);  // o is as resolved from here on
  if (!ignite.wals.empty()) how.increment = app::IgniteIncrementOf(choice, ignite.inputs);
  // What each node's replay of the increment reads is kept as the check reads it, so that
  // the WAL is read once.
  std::map<std::string, std::shared_ptr<recovery::KeptRecords>> kept;
  if (how.increment) {
    std::string name = how.increment->first;
    if (name.empty()) {  // the full snapshot taken last, as the check's bounds take it
      std::vector<app::WalInput> nodes;
      for (const auto& [node, in] : ignite.inputs) nodes.push_back(in);
      name = app::BoundToIncrement(&nodes, name, how.increment->second);
    }
    const uint32_t k = how.increment->second;
    how.tap = [&kept, name, k, budget = recovery::KeptRecords::Budget()](size_t,
                                                                         const app::WalInput& in) -> cut::RecordTap {
      auto range = app::IncrementRangeOf(in, name, k);
      if (!range) return nullptr;
      auto records = std::make_shared<recovery::KeptRecords>(range->from, range->cut_id, budget);
      kept[in.node] = records;
      return [records](const wal::Record& r) { records->Add(r); };
    };
  }
  how.keep_sets = true;
  how.progress = "finding the cuts";
  how.threads = o.jobs;  // --jobs counts the threads of both phases (0: one per core)
  DirCuts found;
  int code = kExitOk;
  if (!CheckDirs(dirs, how, output, &found, &code)) return code;
  app::WalInputs& inputs = found.inputs;
  std::vector<cut::NodeIndex>& indexes = found.indexes;
  const std::optional<cut::ClusterInfo>& cluster = inputs.cluster;
  cut::ClusterReport& report = found.report;
  PrintNodeProblems(report, output);
  // A node of the cluster not given (Ignite's snapshot metadata names its baseline) makes
  // the restore partial: only --node says that is meant.
  std::string missing;
  for (const auto& p : report.problems) {
    if (p.kind == cut::Kind::kNotGiven) missing += (missing.empty() ? "" : ", ") + p.node;
  }
  if (!missing.empty() && o.nodes.empty()) {
    output.Error("the cluster has {} too, whose directories were not given: the restore would be partial", missing);
    output.Hint("give every node's directory, or --node NAME for each node to restore");
    return kExitUsage;
  }
  size_t chosen = 0;
  uint64_t latest_ts = 0;
  for (const auto& n : indexes) latest_ts = std::max(latest_ts, n.last_ts);
  if (o.caches.size() != o.cache_names.size()) {  // never more than asked for
    output.Error("--cache: the caches of \"{}\" could not be listed", o.dir);
    return kExitUsage;
  }
  if (!ChooseCut(o, choice, report, latest_ts, output, &chosen, &code)) return code;
  if (wal::Status s = app::CheckNodesTakePart(choice, report.cuts[chosen]); !s.ok()) {
    output.Error("{}", s.message());
    return kExitUsage;
  }
  if (!cluster && ignite.wals.empty()) {
    output.Error("\"{}\" has no cluster.json: restore needs a cluster directory", o.dir);
    return kExitUnreadable;
  }
  auto plan = app::PlanChosenRestore(o.dir, ignite, indexes, report, chosen, choice, kept);
  if (!plan.ok()) {
    output.Error("refusing to restore: {}", plan.status().message());
    return ExitCodeOf(plan.status(), Step::kRefusal);
  }
  kept.clear();  // what no replay will use is let go, its budget given back
  if (!o.dry_run)
    return WriteAndReport(o, *plan, cluster ? &*cluster : nullptr, ignite.binary_meta_dirs, ignite_caches, output);
  if (wal::Status s = recovery::CheckBase(*plan); !s.ok()) {
    output.Error("refusing to restore: {}", s.message());
    return ExitCodeOf(s, Step::kRefusal);
  }
  if (o.quiet) return kExitOk;
  fmt::memory_buffer b;
  if (o.json) {
    PlanJson(*plan, &b);
  } else {
    PlanText(*plan, &b);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

}  // namespace tools
