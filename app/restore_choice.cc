#include "app/restore_choice.h"

#include <algorithm>

#include <fmt/format.h>

#include "app/ignite_stores.h"
#include "app/restore_plan.h"

namespace app {

std::optional<size_t> ChooseConsistentCut(const cut::ClusterReport& report, const RestoreChoice& choice) {
  std::optional<size_t> found;
  std::string base = choice.snapshot;
  if (base.empty()) {
    for (const auto& c : report.cuts) {
      if (c.status == cut::CutStatus::kConsistent) base = c.base;
    }
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    if (c.status != cut::CutStatus::kConsistent) continue;
    if (!choice.snapshot.empty() && c.base != choice.snapshot) continue;
    if (choice.increment && c.increment == choice.increment && c.base == base) found = i;
    if (choice.latest) found = i;
    if (choice.finished_by && c.finish_ts <= *choice.finished_by) found = i;
  }
  return found;
}

wal::Status CheckSubset(const RestoreChoice& choice, const WalInputs& inputs, const std::string& dir) {
  for (const auto& want : choice.nodes) {
    if (std::none_of(inputs.nodes.begin(), inputs.nodes.end(), [&](const WalInput& n) { return n.node == want; })) {
      return wal::Status::InvalidArgument(fmt::format("no node \"{}\" in \"{}\"", want, dir));
    }
  }
  if (!inputs.cluster) return wal::Status::Ok();
  const cut::ClusterInfo& cluster = *inputs.cluster;
  for (uint32_t id : choice.caches) {
    if (std::none_of(cluster.caches.begin(), cluster.caches.end(),
                     [&](const cut::CacheInfo& c) { return c.id == id; })) {
      std::string have;
      for (const auto& c : cluster.caches) have += (have.empty() ? "" : ", ") + std::to_string(c.id);
      return wal::Status::InvalidArgument(
          fmt::format("--cache: no cache {} in \"{}\" (its caches: {})", id, dir, have));
    }
  }
  uint32_t most = 0;
  for (const auto& c : cluster.caches) {
    if (choice.caches.empty() || std::find(choice.caches.begin(), choice.caches.end(), c.id) != choice.caches.end()) {
      most = std::max(most, c.partitions);
    }
  }
  for (uint32_t p : choice.partitions) {
    if (p >= most) {
      return wal::Status::InvalidArgument(
          fmt::format("--partition: {} is not a partition of the caches restored (they have {})", p, most));
    }
  }
  return wal::Status::Ok();
}

wal::Status CheckNodesTakePart(const RestoreChoice& choice, const cut::CutReport& chosen) {
  for (const auto& want : choice.nodes) {
    if (std::none_of(chosen.nodes.begin(), chosen.nodes.end(),
                     [&](const cut::CutNodeRow& r) { return r.node == want; })) {
      return wal::Status::InvalidArgument(
          fmt::format("--node {}: it takes no part in cut {} (it does not hold its base snapshot \"{}\")", want,
                      chosen.id.ToString(), chosen.base));
    }
  }
  return wal::Status::Ok();
}

std::optional<std::pair<std::string, uint32_t>> IgniteIncrementOf(const RestoreChoice& choice,
                                                                  const std::map<std::string, WalInput>& inputs) {
  std::vector<WalInput> nodes;
  for (const auto& [name, in] : inputs) nodes.push_back(in);
  if (choice.increment) return std::make_pair(choice.snapshot, *choice.increment);
  if (choice.cut) return IncrementOfCut(nodes, *choice.cut);
  if (choice.latest) return LatestIncrement(nodes, choice.snapshot);
  return std::nullopt;
}

wal::Result<IgniteRestoreInputs> IgniteRestoreInputsOf(const WalInputs& resolved, const std::string& dir,
                                                       bool several_dirs) {
  IgniteRestoreInputs out;
  for (const auto& in : resolved.nodes) {
    if (!IsIgniteInput(in)) continue;
    if (in.wal_dir.empty()) {
      return wal::Status::InvalidArgument(fmt::format(
          "restore: {} is a single Ignite segment: restore reads a node's whole WAL (its work directory)", in.node));
    }
    out.wals[in.node] = in.wal_dir;
    out.inputs[in.node] = in;
    for (auto& d : BinaryMetaDirsOf(in)) out.binary_meta_dirs.push_back(std::move(d));
  }
  if (!out.wals.empty() && out.wals.size() != resolved.nodes.size()) {
    return wal::Status::InvalidArgument(fmt::format("restore: \"{}\" mixes Apache Ignite's WAL with walcut's", dir));
  }
  if (out.wals.empty() && several_dirs) {
    return wal::Status::InvalidArgument(
        "restore takes one of walcut's cluster directories (several only of Apache Ignite's)");
  }
  return out;
}

wal::Result<recovery::RestorePlan> PlanChosenRestore(
    const std::string& dir, const IgniteRestoreInputs& ignite, const std::vector<cut::NodeIndex>& indexes,
    const cut::ClusterReport& report, size_t chosen, const RestoreChoice& choice,
    const std::map<std::string, std::shared_ptr<recovery::KeptRecords>>& kept) {
  auto plan = ignite.wals.empty()
                  ? recovery::PlanRestore(dir, indexes, report, chosen, choice.nodes)
                  : PlanIgniteIncrement(ignite.inputs, ignite.wals, indexes, report, chosen, choice.nodes);
  if (!plan.ok()) return plan.status();
  for (auto& n : plan->nodes) {
    n.only_caches = choice.caches;
    n.only_partitions = choice.partitions;
    // Kept records stand for the WAL only where the check read it without an error.
    auto k = kept.find(n.node);
    auto index =
        std::find_if(indexes.begin(), indexes.end(), [&](const cut::NodeIndex& x) { return x.node == n.node; });
    if (k != kept.end() && index != indexes.end() && index->read_errors.empty() && index->open_error.empty()) {
      n.kept = k->second;
    }
  }
  return plan;
}

}  // namespace app
