// What `walcut info` shows, computed from a cut listing and the directories' holdings: each
// node's WAL size, and the cuts grouped by their base snapshot (the full snapshot of Apache
// Ignite's), each with the segments of its increment and, for an Ignite increment, what
// Ignite's own restore of it needs. tools/info.cc prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/holdings.h"
#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"

namespace app {

// A node's WAL as listed for reading.
struct NodeWal {
  std::string node;
  uint64_t files = 0, bytes = 0;
};

// What Ignite's own restore of an increment needs: the full snapshot on every node of its
// baseline, and every increment up to this one, metadata and WAL, on each of them.
struct IgniteNeeds {
  bool ok = true;
  std::vector<std::string> lacking;
};

// One cut as info shows it.
struct CutLine {
  size_t cut = 0;  // in the report
  uint64_t first_segment = 0, last_segment = 0;
  bool has_range = false;
  std::optional<IgniteNeeds> ignite;
};

// The cuts of one base snapshot (or of none). `holdings` points into the holdings given to
// GroupedByBase, `cuts[i].cut` into its report.
struct CutGroup {
  std::string base;
  const SnapshotHoldings* holdings = nullptr;
  std::vector<CutLine> cuts;
  std::vector<const IncrementHoldings*> unseen;  // kept by Ignite, with no cut in the WAL read
};

// Each node's WAL files and bytes, as listed for reading.
std::vector<NodeWal> WalSizes(const WalInputs& inputs);

// The cuts of `report` (indexes: its nodes', in any order) grouped by base snapshot, each
// base of `holdings` or of a node's WAL getting a group, in the order met, a group of no
// base last and only when it has cuts; `ignite`: each Ignite increment says what Ignite's
// own restore of it needs, and each group lists the increments its holdings keep with no
// cut in the report.
std::vector<CutGroup> GroupedByBase(const cut::ClusterReport& report, const std::vector<cut::NodeIndex>& indexes,
                                    const std::vector<SnapshotHoldings>& holdings, bool ignite);

// When the group's base snapshot was taken: its metadata's time, or else the latest of its
// records' times in the nodes' WALs; 0 when neither says.
uint64_t BaseTime(const std::vector<cut::NodeIndex>& indexes, const CutGroup& g);

// The nodes whose WAL has the record of base snapshot `base` (walcut's base snapshots are
// found there as well as on disk).
std::vector<std::string> NodesWithRecord(const std::vector<cut::NodeIndex>& indexes, const std::string& base);

}  // namespace app
