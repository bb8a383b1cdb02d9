#include "tools/simulate.h"

#include <filesystem>

#include "libwal/staged_output.h"
#include "sim/simulate.h"

namespace tools {
namespace fs = std::filesystem;

int RunSimulate(const SimulateOptions& o, Output& output) {
  // Written so that an interrupted run never leaves a directory that looks like a
  // finished one (wal::StagedOutput).
  auto staged = wal::StagedOutput::Begin(o.out);
  if (!staged.ok()) {
    output.Error("{}", staged.status().message());
    output.Hint("choose a new directory, or remove this one first");
    return staged.status().code() == wal::StatusCode::kIoError ? kExitUnreadable : kExitUsage;
  }
  sim::SimConfig config = o.config;
  config.out_dir = staged->dir();
  config.stop = o.stop;
  auto summary = sim::Simulate(config);
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
      default:
        output.Error("simulation failed: {}", published.ToString());
        return kExitInternal;
    }
  }
  if (o.quiet) return kExitOk;
  const sim::SimSummary& s = *summary;
  const cut::CutStats& k = s.classification;
  if (o.json) {
    std::string j = fmt::format(
        "{{\"schema\":1,\"txs_committed\":{},\"txs_rolled_back\":{},\"lock_timeouts\":{},"
        "\"one_phase\":{},\"two_phase\":{},\"cuts_started\":{},\"cuts_consistent\":{},"
        "\"simulated_ns\":{},\"faults\":{{\"crashes\":{},\"joins\":{},\"txs_recovered\":{},"
        "\"gaps_closed\":{}}},\"nodes\":[",
        s.txs_committed, s.txs_rolled_back, s.lock_timeouts, s.one_phase, s.two_phase,
        s.cuts_started, s.cuts_consistent, s.simulated_ns, s.crashes, s.joins, s.txs_recovered,
        s.gaps_closed);
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      j += fmt::format("{}{{\"node\":\"{}\",\"records\":{},\"bytes\":{}}}", i ? "," : "",
                       s.nodes[i].name, s.nodes[i].records, s.nodes[i].bytes);
    }
    j += fmt::format(
        "],\"classification\":{{\"watched\":{},\"before\":{},\"after_by_stamp\":{},"
        "\"after_by_topology\":{},\"rolled_back\":{},\"committed_in_start_step\":{}}}}}\n",
        k.watched, k.before, k.after_by_stamp, k.after_by_topology, k.rolled_back,
        k.committed_in_start_step);
    output.out->Write(j);
    return kExitOk;
  }
  std::string t = fmt::format(
      "cluster directory: {}\n"
      "transactions: {} committed, {} rolled back ({} lock timeouts), {} 1PC, {} 2PC\n"
      "cuts: {} started, {} consistent\n"
      "simulated time: {}.{:09} s\n",
      o.out, s.txs_committed, s.txs_rolled_back, s.lock_timeouts, s.one_phase, s.two_phase,
      s.cuts_started, s.cuts_consistent, s.simulated_ns / 1000000000u, s.simulated_ns % 1000000000u);
  if (s.crashes + s.joins + s.txs_recovered > 0) {
    t += fmt::format("faults: {} crashed, {} joined, {} transactions finished by recovery, {} gaps closed\n",
                     s.crashes, s.joins, s.txs_recovered, s.gaps_closed);
  }
  for (const auto& n : s.nodes) {
    t += fmt::format("{}: {} records, {} bytes of WAL\n", n.name, n.records, n.bytes);
  }
  t += fmt::format(
      "watched transactions: {} (before {}, after by txCutId {}, after by topology {}, "
      "rolled back {}; committed during the start step {})\n",
      k.watched, k.before, k.after_by_stamp, k.after_by_topology, k.rolled_back,
      k.committed_in_start_step);
  output.out->Write(t);
  return kExitOk;
}

}  // namespace tools
