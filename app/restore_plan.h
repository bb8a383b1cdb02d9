// The plan of an Apache Ignite increment's restore, as `restore` makes it and `cuts`
// reports it: from the full snapshot's page files and the increments' WAL where every
// node's snapshot holds its page files, else from each node's WAL replayed from its
// first record (which real archives do not keep).
#pragma once

#include <map>
#include <string>
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

}  // namespace app
