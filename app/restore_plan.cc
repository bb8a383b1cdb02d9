#include "app/restore_plan.h"

#include <fmt/format.h>

#include "libwal/printable.h"

namespace app {

wal::Result<recovery::RestorePlan> PlanIgniteIncrement(const std::map<std::string, WalInput>& inputs,
                                                       const std::map<std::string, wal::WalLocation>& wals,
                                                       const std::vector<cut::NodeIndex>& indexes,
                                                       const cut::ClusterReport& report, size_t cut_index,
                                                       const std::vector<std::string>& only_nodes) {
  auto snapshot_dir = [&](const std::string& node, const std::string& snapshot) {
    const auto it = inputs.find(node);
    if (it == inputs.end()) return std::string();
    const WalInput& in = it->second;
    return in.ignite_snapshot.empty() ? in.ignite_work + "/snapshots/" + snapshot : in.ignite_snapshot;
  };
  auto plan = recovery::PlanIgniteSnapshotRestore(snapshot_dir, wals, indexes, report, cut_index, only_nodes);
  if (plan.ok() || plan.status().code() != wal::StatusCode::kNotFound) return plan;
  auto from_wal = recovery::PlanIgniteRestore(wals, indexes, report, cut_index, only_nodes);
  if (from_wal.ok()) return from_wal;
  return wal::Status(from_wal.status().code(),
                     fmt::format("{}; and {}", plan.status().message(), from_wal.status().message()));
}

namespace {

bool FromIgniteSnapshot(const recovery::RestorePlan& plan) {
  return !plan.nodes.empty() && !plan.nodes.front().ignite_store.empty();
}

bool FromIgniteWal(const recovery::RestorePlan& plan) { return !plan.nodes.empty() && plan.nodes.front().ignite; }

}  // namespace

std::string RestorePath(const recovery::RestorePlan& plan) {
  if (FromIgniteSnapshot(plan)) {
    return fmt::format("from Ignite's full snapshot '{}' and the increments' WAL", wal::Printable(plan.base));
  }
  if (FromIgniteWal(plan)) return "from each node's WAL from its first record";
  return fmt::format("from the base snapshot '{}'", wal::Printable(plan.base));
}

std::string RestorePathKind(const recovery::RestorePlan& plan) {
  if (FromIgniteSnapshot(plan)) return "ignite-snapshot";
  if (FromIgniteWal(plan)) return "ignite-wal";
  return "base";
}

std::optional<std::vector<Restorable>> RestorableCuts(const std::string& dir, const WalInputs& inputs,
                                                      const std::vector<cut::NodeIndex>& indexes,
                                                      const cut::ClusterReport& report) {
  std::map<std::string, wal::WalLocation> ignite_wals;
  std::map<std::string, WalInput> ignite_inputs;
  for (const auto& in : inputs.nodes) {
    if (IsIgniteInput(in) && !in.wal_dir.empty()) {
      ignite_wals[in.node] = in.wal_dir;
      ignite_inputs[in.node] = in;
    }
  }
  const bool ignite = !ignite_wals.empty();
  if (ignite ? ignite_wals.size() != inputs.nodes.size() : (!inputs.cluster || dir.empty())) return std::nullopt;
  std::vector<Restorable> out(report.cuts.size());
  // A node of the cluster not given: restore refuses a partial restore (short of --node).
  std::string partial;
  for (const auto& p : report.problems) {
    if (p.kind == cut::Kind::kNotGiven && partial.empty()) {
      partial = fmt::format("{} was not given: the restore would be partial", p.node);
    }
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    if (c.status != cut::CutStatus::kConsistent) {
      out[i].why = cut::CutStatusName(c.status);
      continue;
    }
    if (!partial.empty()) {
      out[i].why = partial;
      continue;
    }
    auto plan = ignite ? PlanIgniteIncrement(ignite_inputs, ignite_wals, indexes, report, i, {})
                       : recovery::PlanRestore(dir, indexes, report, i, {});
    if (!plan.ok()) {
      out[i].why = plan.status().message();
      continue;
    }
    out[i].ok = true;
    out[i].how = RestorePath(*plan);
    out[i].kind = RestorePathKind(*plan);
    for (const auto& np : plan->nodes) out[i].from.emplace_back(np.node, np.from.segment);
  }
  return out;
}

}  // namespace app
