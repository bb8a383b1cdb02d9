#include "libcut/kept_increments.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "libwal/ignite_increment_meta.h"

namespace cut {

namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

void ApplyKeptIncrements(const std::vector<NodeKept>& nodes, const std::vector<std::string>& node_order,
                         ClusterReport* report) {
  if (nodes.empty()) return;
  for (auto& c : report->cuts) {
    if (c.status != CutStatus::kConsistent) continue;
    std::vector<std::string> lacking, unknown;
    std::optional<KeptIncrement> named;
    for (const auto& n : nodes) {
      auto it = std::find_if(n.kept.begin(), n.kept.end(), [&c](const KeptIncrement& k) { return k.cut == c.id; });
      if (it != n.kept.end()) {
        if (!named) named = *it;
      } else if (!n.unreadable.empty()) {
        unknown.push_back(n.node);
      } else {
        lacking.push_back(n.node);
      }
    }
    if (lacking.empty() && unknown.empty()) {
      c.base = named->snapshot;
      c.increment = named->index;
      continue;
    }
    c.increment.reset();
    if (!unknown.empty()) {
      c.status = CutStatus::kUnverifiable;
      c.reason = fmt::format("the increments' metadata of {} cannot be read whole", Joined(unknown));
      c.violations.push_back({Kind::kUnreadableMeta, std::nullopt, unknown,
                              "whether the node keeps the increment is not known"});
      continue;
    }
    c.status = CutStatus::kIncomplete;
    c.reason = fmt::format("Ignite kept no increment of it: no .smf names it on {}", Joined(lacking));
    c.violations.push_back({Kind::kNotKept, std::nullopt, lacking,
                            "every node wrote its Start and Finish records, but Ignite failed the increment"});
  }
  auto rank = [&node_order](const std::string& node) {
    return std::find(node_order.begin(), node_order.end(), node) - node_order.begin();
  };
  for (const auto& n : nodes) {
    for (const auto& why : n.unreadable) report->problems.push_back({n.node, Kind::kUnreadableMeta, why});
  }
  std::vector<std::string> baseline;
  for (const auto& n : nodes) {
    for (const auto& b : n.baseline) {
      if (std::find(baseline.begin(), baseline.end(), b) == baseline.end()) baseline.push_back(b);
    }
  }
  for (const auto& b : baseline) {
    const bool given = std::any_of(nodes.begin(), nodes.end(), [&b](const NodeKept& n) {
      return n.consistent_id == b || n.node == wal::IgniteFolderOf(b);
    });
    if (!given) {
      report->problems.push_back({b, Kind::kNotGiven, "a baseline node of the snapshot (its metadata), but no WAL "
                                                      "was given for it"});
    }
  }
  std::stable_sort(report->problems.begin(), report->problems.end(),
                   [&rank](const NodeProblem& a, const NodeProblem& b) { return rank(a.node) < rank(b.node); });
}

}  // namespace cut
