// The plan of an Apache Ignite increment's restore, as `restore` makes it and `cuts`
// reports it: from the full snapshot's page files and the increments' WAL where every
// node's snapshot holds its page files, else from each node's WAL replayed from its
// first record (which real archives do not keep). And whether each cut could be restored
// now (`cuts` shows it; `prune` keeps what the restorable ones need).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"
#include "recovery/restore.h"

namespace app {

// `inputs`: the Ignite nodes by name; `wals`: where each one's WAL lies.
wal::Result<recovery::RestorePlan> PlanIgniteIncrement(const std::map<std::string, WalInput>& inputs,
                                                       const std::map<std::string, wal::WalLocation>& wals,
                                                       const std::vector<cut::NodeIndex>& indexes,
                                                       const cut::ClusterReport& report, size_t cut_index,
                                                       const std::vector<std::string>& only_nodes);

// How a plan restores, in a few words: "from Ignite's full snapshot 'NAME' and the
// increments' WAL", "from each node's WAL from its first record", "from the base
// snapshot 'NAME'".
std::string RestorePath(const recovery::RestorePlan& plan);

// The same as one word for JSON: "ignite-snapshot", "ignite-wal" or "base".
std::string RestorePathKind(const recovery::RestorePlan& plan);

// Whether a cut could be restored now: restore's plan (the cut consistent, its base
// snapshot's snapshot.json and partition files on every node of the cut, its record
// where snapshot.json says, every segment from there to the Finish record present and
// free of the damage the reading found), short of reading the partition files.
struct Restorable {
  bool ok = false;
  std::string why;                                     // when not
  std::string how;                                     // when so: RestorePath
  std::string kind;                                    // and RestorePathKind
  std::vector<std::pair<std::string, uint64_t>> from;  // per node: the segment its replay begins at
};

// Of every cut of `report`; nullopt when `inputs` are not one cluster directory (`dir`)
// or Apache Ignite's nodes (work directories or snapshot copies, every node given), whose
// cuts restore does not take.
std::optional<std::vector<Restorable>> RestorableCuts(const std::string& dir, const WalInputs& inputs,
                                                      const std::vector<cut::NodeIndex>& indexes,
                                                      const cut::ClusterReport& report);

}  // namespace app
