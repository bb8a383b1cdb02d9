#include "libcut/kept_increments.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "libwal/ignite_increment_meta.h"
#include "libwal/printable.h"

namespace cut {

namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

const CutNodeRow* RowOf(const CutReport& c, const std::string& node) {
  for (const auto& r : c.nodes) {
    if (r.node == node) return &r;
  }
  return nullptr;
}

// Why `k`, of node `node`, disagrees with the WAL the report read; empty when it does not.
std::string Disagreement(const KeptIncrement& k, const std::string& node, const ClusterReport& report) {
  const CutReport* mine = nullptr;
  const CutReport* at_pointer = nullptr;
  for (const auto& c : report.cuts) {
    if (c.id == k.cut) mine = &c;
    const CutNodeRow* r = RowOf(c, node);
    if (k.finish && r != nullptr && r->has_finish && r->finish == *k.finish) at_pointer = &c;
  }
  if (mine != nullptr) {
    const CutNodeRow* r = RowOf(*mine, node);
    if (k.finish && r != nullptr && r->has_finish && r->finish != *k.finish && at_pointer != nullptr) {
      return fmt::format(
          "{}: rqId is {}, whose Finish record is at {}, but its incSnpRec {} is the Finish record of cut {}", k.path,
          k.cut.ToString(), r->finish.ToString(), k.finish->ToString(), at_pointer->id.ToString());
    }
    if (k.finish && r != nullptr && r->has_finish && r->finish != *k.finish) {
      return fmt::format("{}: incSnpRec is {}, but the Finish record of its cut {} is at {}", k.path,
                         k.finish->ToString(), k.cut.ToString(), r->finish.ToString());
    }
    if (!mine->base.empty() && mine->base != k.snapshot) {
      return fmt::format("{}: snpName is '{}', but its cut {} follows the full snapshot '{}' in the WAL", k.path,
                         wal::Printable(k.snapshot), k.cut.ToString(), wal::Printable(mine->base));
    }
    return {};
  }
  if (at_pointer != nullptr) {
    return fmt::format("{}: rqId is {}, but the Finish record at {} (its incSnpRec) is of cut {}", k.path,
                       k.cut.ToString(), k.finish->ToString(), at_pointer->id.ToString());
  }
  return {};
}

}  // namespace

void ApplyKeptIncrements(std::vector<NodeKept> nodes, const std::vector<std::string>& node_order,
                         ClusterReport* report) {
  if (nodes.empty()) return;
  // Each node's metadata held to the WAL, then the nodes' metadata of one cut to each other.
  for (auto& n : nodes) {
    std::vector<KeptIncrement> sound;
    for (auto& k : n.kept) {
      if (std::string why = Disagreement(k, n.node, *report); !why.empty()) {
        n.unreadable.push_back(std::move(why));
      } else {
        sound.push_back(std::move(k));
      }
    }
    n.kept = std::move(sound);
  }
  for (auto& n : nodes) {
    for (const auto& k : n.kept) {
      for (auto& other : nodes) {
        if (&other == &n) continue;
        auto it =
            std::find_if(other.kept.begin(), other.kept.end(), [&k](const KeptIncrement& x) { return x.cut == k.cut; });
        if (it != other.kept.end() && (it->index != k.index || it->snapshot != k.snapshot)) {
          other.unreadable.push_back(fmt::format("{}: increment {} of '{}', but {} names its cut increment {} of '{}'",
                                                 it->path, it->index, wal::Printable(it->snapshot), k.path, k.index,
                                                 wal::Printable(k.snapshot)));
          other.kept.erase(it);
        }
      }
    }
  }
  for (auto& c : report->cuts) {
    // A cut whose copies differ (a node rebalanced since the full snapshot) may be an
    // increment Ignite failed for that reason: its metadata says.
    const bool copies_only = c.status == CutStatus::kInconsistent && !c.violations.empty() &&
                             std::all_of(c.violations.begin(), c.violations.end(),
                                         [](const Violation& v) { return v.kind == Kind::kCopiesDiffer; });
    if (c.status != CutStatus::kConsistent && !copies_only) continue;
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
      c.violations.push_back(
          {Kind::kUnreadableMeta, std::nullopt, unknown, "whether the node keeps the increment is not known"});
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
      report->problems.push_back({b, Kind::kNotGiven,
                                  "a baseline node of the snapshot (its metadata), but no WAL "
                                  "was given for it"});
    }
  }
  std::stable_sort(report->problems.begin(), report->problems.end(),
                   [&rank](const NodeProblem& a, const NodeProblem& b) { return rank(a.node) < rank(b.node); });
}

}  // namespace cut
