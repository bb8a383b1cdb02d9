#include "libcut/kept_increments.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

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

// The report's cuts by id, and one node's by the place of its Finish record (the last cut
// of the report with a Finish there, as a scan in report order finds it).
struct CutsOfNode {
  std::unordered_map<wal::Uuid, const CutReport*, wal::UuidHash> by_id;  // the last cut of an id
  std::map<wal::Pointer, const CutReport*> by_finish;
};

CutsOfNode IndexCuts(const ClusterReport& report, const std::string& node) {
  CutsOfNode out;
  for (const auto& c : report.cuts) {
    out.by_id[c.id] = &c;
    const CutNodeRow* r = RowOf(c, node);
    if (r != nullptr && r->has_finish) out.by_finish[r->finish] = &c;
  }
  return out;
}

// Why `k`, of node `node`, disagrees with the WAL the report read; empty when it does not.
std::string Disagreement(const KeptIncrement& k, const std::string& node, const CutsOfNode& cuts) {
  auto found = cuts.by_id.find(k.cut);
  const CutReport* mine = found != cuts.by_id.end() ? found->second : nullptr;
  const CutReport* at_pointer = nullptr;
  if (k.finish) {
    auto at = cuts.by_finish.find(*k.finish);
    if (at != cuts.by_finish.end()) at_pointer = at->second;
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

// The nodes' metadata of one cut held to each other: in node order, each kept increment
// against the first one of its cut still held on each other node; one that names another
// snapshot or index is unreadable there, and no longer held. Grouped by cut, so the cost
// follows the metadata, not its square.
void CrossCheck(std::vector<NodeKept>& nodes) {
  struct Held {
    size_t node;
    size_t at;
  };
  std::unordered_map<wal::Uuid, std::vector<Held>, wal::UuidHash> by_cut;  // in node order, then file order
  std::vector<std::vector<char>> gone(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    gone[n].assign(nodes[n].kept.size(), 0);
    for (size_t i = 0; i < nodes[n].kept.size(); ++i) by_cut[nodes[n].kept[i].cut].push_back({n, i});
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t i = 0; i < nodes[n].kept.size(); ++i) {
      if (gone[n][i]) continue;
      const KeptIncrement& k = nodes[n].kept[i];
      const std::vector<Held>& same = by_cut[k.cut];
      size_t last = nodes.size();  // the node whose first held one was taken (a node's are together)
      for (const Held& h : same) {
        const size_t other = h.node;
        if (other == n || gone[other][h.at] || other == last) continue;
        last = other;
        const KeptIncrement& it = nodes[other].kept[h.at];
        if (it.index != k.index || it.snapshot != k.snapshot) {
          nodes[other].unreadable.push_back(
              fmt::format("{}: increment {} of '{}', but {} names its cut increment {} of '{}'", it.path, it.index,
                          wal::Printable(it.snapshot), k.path, k.index, wal::Printable(k.snapshot)));
          gone[other][h.at] = 1;
        }
      }
    }
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::vector<KeptIncrement> held;
    for (size_t i = 0; i < nodes[n].kept.size(); ++i) {
      if (!gone[n][i]) held.push_back(std::move(nodes[n].kept[i]));
    }
    nodes[n].kept = std::move(held);
  }
}

}  // namespace

std::optional<std::vector<NodeKept>> KeptWhenAnyHasMetadata(std::vector<NodeKept> nodes) {
  if (std::none_of(nodes.begin(), nodes.end(), [](const NodeKept& n) { return n.has_metadata; })) return std::nullopt;
  return nodes;
}

void ApplyKeptIncrements(std::vector<NodeKept> nodes, const std::vector<std::string>& node_order,
                         ClusterReport* report) {
  if (nodes.empty()) return;
  // Each node's metadata held to the WAL, then the nodes' metadata of one cut to each other.
  for (auto& n : nodes) {
    std::vector<KeptIncrement> sound;
    const CutsOfNode cuts = IndexCuts(*report, n.node);
    for (auto& k : n.kept) {
      if (std::string why = Disagreement(k, n.node, cuts); !why.empty()) {
        n.unreadable.push_back(std::move(why));
      } else {
        sound.push_back(std::move(k));
      }
    }
    n.kept = std::move(sound);
  }
  CrossCheck(nodes);
  // Each node's kept increments by cut (the first of a cut, as a scan finds it).
  std::vector<std::unordered_map<wal::Uuid, const KeptIncrement*, wal::UuidHash>> kept_by_cut(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (const auto& k : nodes[n].kept) kept_by_cut[n].emplace(k.cut, &k);
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
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeKept& n = nodes[i];
      auto it = kept_by_cut[i].find(c.id);
      if (it != kept_by_cut[i].end()) {
        if (!named) named = *it->second;
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
  std::unordered_set<std::string> seen, ids, folders;
  for (const auto& n : nodes) {
    for (const auto& b : n.baseline) {
      if (seen.insert(b).second) baseline.push_back(b);
    }
    ids.insert(n.consistent_id);
    folders.insert(n.node);
  }
  for (const auto& b : baseline) {
    const bool given = ids.count(b) != 0 || folders.count(wal::IgniteFolderOf(b)) != 0;
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
