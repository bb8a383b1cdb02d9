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

}  // namespace app
