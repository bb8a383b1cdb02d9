#include "tools/simulate.h"

#include <atomic>
#include <filesystem>

#include "libwal/staged_output.h"
#include "sim/simulate.h"
#include "tools/json_writer.h"
#include "tools/progress.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

void SummaryJson(const sim::SimSummary& s, fmt::memory_buffer* b) {
  const cut::CutStats& k = s.classification;
  JsonWriter j(b);
  j.BeginObject()
      .Field("schema", 1)
      .Field("txs_committed", s.txs_committed)
      .Field("txs_rolled_back", s.txs_rolled_back);
  j.Field("lock_timeouts", s.lock_timeouts).Field("one_phase", s.one_phase).Field("two_phase", s.two_phase);
  j.Field("cuts_started", s.cuts_started).Field("cuts_consistent", s.cuts_consistent);
  j.Field("simulated_ns", s.simulated_ns).Key("faults").BeginObject().Field("crashes", s.crashes);
  j.Field("joins", s.joins).Field("txs_recovered", s.txs_recovered).Field("gaps_closed", s.gaps_closed).EndObject();
  j.Key("nodes").BeginArray();
  for (const auto& n : s.nodes) {
    j.BeginObject().Field("node", n.name).Field("records", n.records).Field("bytes", n.bytes).EndObject();
  }
  j.EndArray().Key("classification").BeginObject().Field("watched", k.watched).Field("before", k.before);
  j.Field("after_by_stamp", k.after_by_stamp).Field("after_by_topology", k.after_by_topology);
  j.Field("rolled_back", k.rolled_back).Field("committed_in_start_step", k.committed_in_start_step);
  j.EndObject().EndObject();
  b->push_back('\n');
}

}  // namespace

int RunSimulate(const SimulateOptions& o, Output& output) {
  // Written so that an interrupted run never leaves a directory that looks like a
  // finished one (wal::StagedOutput).
  auto staged = wal::StagedOutput::Begin(o.out);
  if (!staged.ok()) {
    output.Error("{}", staged.status().message());
    output.Hint("choose a new directory, or remove this one first");
    return ExitCodeOf(staged.status(), Step::kOutput);
  }
  sim::SimConfig config = o.config;
  config.out_dir = staged->dir();
  config.stop = o.stop;
  std::atomic<uint64_t> txs_done{0};
  config.txs_done = &txs_done;
  auto summary = [&] {
    Progress progress(output.progress, "simulating", config.txs, "transactions",
                      [&txs_done] { return txs_done.load(std::memory_order_relaxed); });
    return sim::Simulate(config);
  }();
  wal::Status published = summary.ok() ? staged->Publish() : summary.status();
  if (!published.ok()) {
    switch (published.code()) {
      case wal::StatusCode::kCancelled:
        output.Error("interrupted: nothing of \"{}\" was kept", o.out);
        return kExitInterrupted;
      case wal::StatusCode::kIoError:
        output.Error("simulation failed: {}", published.message());
        return kExitUnreadable;
      case wal::StatusCode::kInvalidArgument:  // a fault the cluster cannot take
        output.Error("simulation failed: {}", published.ToString());
        return kExitUsage;
      default: output.Error("simulation failed: {}", published.ToString()); return kExitInternal;
    }
  }
  if (o.quiet) return kExitOk;
  const sim::SimSummary& s = *summary;
  const cut::CutStats& k = s.classification;
  if (o.json) {
    fmt::memory_buffer b;
    SummaryJson(s, &b);
    output.out->Write(std::string_view(b.data(), b.size()));
    return kExitOk;
  }
  std::string t = fmt::format(
      "cluster directory: {}\n"
      "transactions: {} committed, {} rolled back ({} lock timeouts), {} 1PC, {} 2PC\n"
      "cuts: {} started, {} consistent\n"
      "simulated time: {}.{:09} s\n",
      o.out, s.txs_committed, s.txs_rolled_back, s.lock_timeouts, s.one_phase, s.two_phase, s.cuts_started,
      s.cuts_consistent, s.simulated_ns / 1000000000u, s.simulated_ns % 1000000000u);
  if (s.crashes + s.joins + s.txs_recovered > 0) {
    t += fmt::format("faults: {} crashed, {} joined, {} transactions finished by recovery, {} gaps closed\n", s.crashes,
                     s.joins, s.txs_recovered, s.gaps_closed);
  }
  for (const auto& n : s.nodes) {
    t += fmt::format("{}: {} records, {} bytes of WAL\n", n.name, n.records, n.bytes);
  }
  t += fmt::format(
      "watched transactions: {} (before {}, after by txCutId {}, after by topology {}, "
      "rolled back {}; committed during the start step {})\n",
      k.watched, k.before, k.after_by_stamp, k.after_by_topology, k.rolled_back, k.committed_in_start_step);
  output.out->Write(t);
  return kExitOk;
}

}  // namespace tools
