#include "tools/restore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

#include "libwal/segment_file.h"
#include "libwal/wal_writer.h"
#include "recovery/restore.h"
#include "recovery/restore_job.h"
#include "recovery/verify.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

// The cut the options name, among the report's cuts.
bool ChooseCut(const RestoreOptions& o, const cut::ClusterReport& report, Output& output, size_t* index,
               int* code) {
  if (o.cut) return SelectCut(report, *o.cut, output, index, code);
  std::optional<size_t> found;
  std::string latest_base;
  for (const auto& c : report.cuts) {
    if (c.status == cut::CutStatus::kConsistent) latest_base = c.base;
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    if (c.status != cut::CutStatus::kConsistent) continue;
    if (o.increment && c.increment == o.increment && c.base == latest_base) found = i;
    if (o.latest) found = i;
    if (o.time && static_cast<double>(c.finish_ts) / 1e9 <= *o.time) found = i;
  }
  if (!found) {
    if (o.increment) output.Error("no consistent cut is increment {}", *o.increment);
    else if (o.time) output.Error("no consistent cut finished at or before {} s", *o.time);
    else output.Error("no consistent cut to restore");
    output.Hint("\"walcut cuts DIR\" lists the cuts and their statuses");
    *code = kExitProblems;
    return false;
  }
  *index = *found;
  return true;
}

// Progress on a terminal: MiB of WAL replayed per node, the total against the
// estimate, and the time left, at most five times a second.
class RestoreProgress {
 public:
  RestoreProgress(Output& output, bool quiet, uint64_t total) : output_(output), on_(output.err_is_terminal && !quiet), total_(total) {}
  ~RestoreProgress() {
    if (on_ && shown_) output_.err->Write("\n");
  }
  void operator()(const std::string& node, uint64_t bytes) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mu_);
    done_[node] = bytes;
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    uint64_t sum = 0;
    std::string line = "\rrestoring:";
    for (const auto& [n, b] : done_) {
      line += fmt::format(" {} {} MiB", n, b >> 20);
      sum += b;
    }
    double secs = std::chrono::duration<double>(now - started_).count();
    line += fmt::format(" (total {} of ~{} MiB", sum >> 20, total_ >> 20);
    if (sum > 0 && sum < total_ && secs > 0.5) {
      line += fmt::format(", ~{:.0f} s left", secs * static_cast<double>(total_ - sum) / static_cast<double>(sum));
    }
    line += ")   ";
    output_.err->Write(line);
    shown_ = true;
  }

 private:
  Output& output_;
  bool on_;
  uint64_t total_;
  bool shown_ = false;
  std::mutex mu_;
  std::map<std::string, uint64_t> done_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = started_;
};

}  // namespace

int RunRestore(const RestoreOptions& o, Output& output) {
  std::vector<cut::NodeIndex> indexes;
  std::optional<cut::ClusterInfo> cluster;
  int code = kExitOk;
  if (!LoadIndexesFromWal({o.dir}, output, &indexes, &cluster, &code)) return code;
  cut::ClusterReport report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr);
  PrintNodeProblems(report, output);
  size_t chosen = 0;
  if (!ChooseCut(o, report, output, &chosen, &code)) return code;
  const auto& rows = report.cuts[chosen].nodes;
  for (const auto& want : o.nodes) {
    if (std::none_of(indexes.begin(), indexes.end(), [&](const cut::NodeIndex& n) { return n.node == want; })) {
      output.Error("no node \"{}\" in \"{}\"", want, o.dir);
      return kExitUsage;
    }
    if (std::none_of(rows.begin(), rows.end(), [&](const cut::CutNodeRow& r) { return r.node == want; })) {
      output.Error("--node {}: it takes no part in cut {} (it does not hold its base snapshot \"{}\")", want,
                   report.cuts[chosen].id.ToString(), report.cuts[chosen].base);
      return kExitUsage;
    }
  }
  if (!cluster) {
    output.Error("\"{}\" has no cluster.json: restore needs a cluster directory", o.dir);
    return kExitUnreadable;
  }
  auto plan = recovery::PlanRestore(o.dir, indexes, report, chosen, o.nodes);
  if (!plan.ok()) {
    output.Error("refusing to restore: {}", plan.status().message());
    return plan.status().code() == wal::StatusCode::kIoError ? kExitUnreadable : kExitProblems;
  }
  if (o.dry_run && o.json) {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "{{\"schema\":1,\"dry_run\":true,\"cut\":\"{}\",\"increment\":{},\"base\":", plan->cut.ToString(),
                   plan->increment);
    AppendJsonString(&b, plan->base);
    fmt::format_to(it, ",\"nodes\":[");
    for (size_t i = 0; i < plan->nodes.size(); ++i) {
      const auto& n = plan->nodes[i];
      fmt::format_to(it, "{}{{\"node\":", i ? "," : "");
      AppendJsonString(&b, n.node);
      fmt::format_to(it, ",\"base\":");
      AppendJsonString(&b, n.base_dir);
      fmt::format_to(it, ",\"from\":\"{}\",\"start\":\"{}\",\"finish\":\"{}\",\"before\":{},\"after\":{}}}",
                     n.from.ToString(), n.start.ToString(), n.finish.ToString(), n.before.size(), n.after.size());
    }
    fmt::format_to(it, "]}}\n");
    output.out->Write(std::string_view(b.data(), b.size()));
    return kExitOk;
  }
  if (o.dry_run) {
    if (o.quiet) return kExitOk;
    std::string t = fmt::format("restore plan: cut {}, increment {} of \"{}\"\n", plan->cut.ToString(),
                                plan->increment, plan->base);
    for (const auto& n : plan->nodes) {
      t += fmt::format("  {:<12} base {} from {} to {} (Start {}), apply what committed before Start except {} "
                       "listed After, and {} listed Before after it\n",
                       n.node, n.base_dir, n.from.ToString(), n.finish.ToString(), n.start.ToString(),
                       n.after.size(), n.before.size());
    }
    output.out->Write(t);
    return kExitOk;
  }
  recovery::RestoreJob job;
  job.out = o.out;
  job.jobs = o.jobs;
  job.force = o.force;
  job.only_nodes = o.nodes;
  job.cancel = o.stop;
  RestoreProgress progress(output, o.quiet, recovery::EstimateReplayBytes(*plan));
  job.progress = [&progress](const std::string& node, uint64_t bytes) { progress(node, bytes); };
  auto outcome = recovery::WriteRestore(*plan, *cluster, job);
  if (!outcome.ok()) {
    switch (outcome.status().code()) {
      case wal::StatusCode::kAlreadyExists:
      case wal::StatusCode::kInvalidArgument:
        output.Error("{}", outcome.status().message());
        return kExitUsage;
      case wal::StatusCode::kIoError:
        output.Error("{}", outcome.status().message());
        return kExitUnreadable;
      case wal::StatusCode::kCancelled:
        output.Error("interrupted: nothing of \"{}\" was kept", o.out);
        return kExitInterrupted;
      default:
        output.Error("refusing to keep the restore: {}", outcome.status().message());
        output.Hint("\"walcut restore --force\" keeps it, marked as such in restore.json");
        return kExitProblems;
    }
  }
  for (const auto& c : outcome->conflicts) {
    std::string nodes;
    for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
    output.Warning("kept with --force: {} cache {} partition {} [{}]: {}", c.kind, c.cache, c.partition, nodes, c.detail);
  }
  const recovery::RestoreManifest& manifest = outcome->manifest;
  if (o.quiet) return kExitOk;
  fmt::memory_buffer b;
  auto bi = std::back_inserter(b);
  if (o.json) {
    fmt::format_to(bi, "{{\"schema\":1,\"cut\":\"{}\",\"increment\":{},\"base\":", plan->cut.ToString(), plan->increment);
    AppendJsonString(&b, plan->base);
    fmt::format_to(bi, ",\"output\":");
    AppendJsonString(&b, o.out);
    fmt::format_to(bi, ",\"forced\":{},\"nodes\":[", manifest.forced);
    for (size_t i = 0; i < manifest.nodes.size(); ++i) {
      const auto& r = manifest.nodes[i];
      fmt::format_to(bi, "{}{{\"node\":", i ? "," : "");
      AppendJsonString(&b, r.node);
      fmt::format_to(bi, ",\"txs_applied\":{},\"txs_skipped\":{},\"entries\":{},\"partitions\":{},\"gaps_closed\":{}}}",
                     r.txs_applied, r.txs_skipped, r.entries, outcome->partitions[i], r.gaps_closed);
    }
    fmt::format_to(bi, "]}}\n");
  } else {
    fmt::format_to(bi, "restored cut {} (increment {} of \"{}\") into {}{}\n", plan->cut.ToString(), plan->increment,
                   plan->base, o.out, manifest.forced ? " (kept with --force: the copies do not all agree)" : "");
    for (size_t i = 0; i < manifest.nodes.size(); ++i) {
      const auto& r = manifest.nodes[i];
      fmt::format_to(bi, "  {:<12} {} transactions applied, {} skipped, {} entries, {} partitions, {} gaps closed\n",
                     r.node, r.txs_applied, r.txs_skipped, r.entries, outcome->partitions[i], r.gaps_closed);
    }
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

int RunVerify(const VerifyOptions& o, Output& output) {
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) {
    output.Error("\"{}\" {}", o.dir, fs::exists(o.dir, ec) ? "is not a directory" : "does not exist");
    return kExitUnreadable;
  }
  auto report = recovery::VerifyDirectory(o.dir);
  if (!report.ok()) {
    output.Error("{}", report.status().message());
    return kExitUnreadable;
  }
  const auto& r = *report;
  if (!o.quiet) {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    if (o.json) {
      fmt::format_to(it, "{{\"schema\":1,\"ok\":{},\"restored\":{},\"partitions\":{},\"files\":{},\"conflicts\":[",
                     r.conflicts.empty(), r.restored, r.partitions, r.files);
      for (size_t i = 0; i < r.conflicts.size(); ++i) {
        const auto& c = r.conflicts[i];
        fmt::format_to(it, "{}{{\"kind\":\"{}\",\"cache\":{},\"partition\":{},\"nodes\":[", i ? "," : "", c.kind, c.cache,
                       c.partition);
        for (size_t k = 0; k < c.nodes.size(); ++k) {
          if (k) b.push_back(',');
          AppendJsonString(&b, c.nodes[k]);
        }
        fmt::format_to(it, "],\"detail\":");
        AppendJsonString(&b, c.detail);
        b.push_back('}');
      }
      fmt::format_to(it, "]}}\n");
    } else {
      for (const auto& c : r.conflicts) {
        std::string nodes;
        for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
        fmt::format_to(it, "conflict {} cache {} partition {} [{}]: {}\n", c.kind, c.cache, c.partition, nodes, c.detail);
      }
      fmt::format_to(it, "{} partitions in {} files{}: {}\n", r.partitions, r.files,
                     r.restored ? " (checked against restore.json)" : "",
                     r.conflicts.empty() ? "all copies agree" : fmt::format("{} conflict(s)", r.conflicts.size()));
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return r.conflicts.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
