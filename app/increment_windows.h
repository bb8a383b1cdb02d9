// What each increment of a cluster holds, as `cuts` shows it: the time it covers and the
// records, bytes and commits of its range on every node, counted as the WALs are read
// (whether it can be restored now: app/restore_plan.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"

namespace app {

// Counts the records of each node's WAL as they are read (through WalCheck::tap), and
// keeps the counts at each Finish record and each base snapshot's record.
class WalTally {
 public:
  struct Counts {
    uint64_t records = 0, bytes = 0, commits = 0;  // commits: COMMITTED TX_RECORDs
    uint64_t decided = 0;                          // COMMITTED or UNKNOWN: what the cut check takes for commits
  };
  explicit WalTally(size_t nodes);
  // The tap of the i-th node of the inputs (called on its reading thread).
  cut::RecordTap Tap(size_t i);

  struct Node {
    Counts now;
    std::map<std::pair<uint64_t, uint64_t>, Counts> finish;                      // by cut id (hi, lo)
    std::vector<std::pair<std::pair<std::string, wal::Pointer>, Counts>> bases;  // name, record
  };
  const Node& node(size_t i) const { return *nodes_[i]; }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
};

// The increment of a consistent cut with a base: from the previous consistent cut of the
// same base (or the base snapshot) to this cut's Finish record.
struct IncrementWindow {
  uint64_t from_ts = 0, to_ts = 0;               // the time it covers
  uint64_t records = 0, bytes = 0, commits = 0;  // of its range, summed over the nodes
  // The commits on this cut's Before side and not on the previous one's (for the first
  // increment: after the base snapshot's record), summed over the nodes; a transaction
  // counts on each node that commits it.
  uint64_t before_commits = 0;
};

// Per cut of `report` (nullopt for the others). `node_of` maps a node name to its index
// among the tally's nodes.
std::vector<std::optional<IncrementWindow>> IncrementWindows(const cut::ClusterReport& report,
                                                             const std::vector<cut::NodeIndex>& indexes,
                                                             const WalTally& tally,
                                                             const std::map<std::string, size_t>& node_of);

}  // namespace app
