// What `restore`'s options choose, checked before and after the cuts are found: which
// consistent cut (--cut, --increment, --latest, --time, of --snapshot), which Ignite
// increment bounds the reading, and whether --node, --cache and --partition name what the
// inputs hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libwal/status.h"

namespace app {

struct RestoreChoice {
  std::optional<std::string> cut;  // an id or a unique prefix (app::ChooseCut)
  std::optional<uint32_t> increment;
  bool latest = false;
  std::optional<uint64_t> finished_by;  // --time, resolved: a cut finished at or before it
  std::string snapshot;                 // only the increments of this base snapshot
  std::vector<std::string> nodes;       // --node
  std::vector<uint32_t> caches, partitions;
};

// The consistent cut chosen by increment, latest or time (not by id): the last of the
// report's cuts that matches, of `snapshot` when given (an increment, of the base of the
// latest consistent cut when no snapshot is given); nullopt when none does.
std::optional<size_t> ChooseConsistentCut(const cut::ClusterReport& report, const RestoreChoice& choice);

// Every --node names a node of `inputs`; every --cache a cache of its cluster file, and
// every --partition a partition of the caches restored (Ignite's caches are known only
// once replayed). kInvalidArgument naming what is not there (`dir` in the message).
wal::Status CheckSubset(const RestoreChoice& choice, const WalInputs& inputs, const std::string& dir);

// Every --node takes part in the chosen cut (kInvalidArgument naming it).
wal::Status CheckNodesTakePart(const RestoreChoice& choice, const cut::CutReport& chosen);

// The Ignite increment the options name, by the nodes' metadata: only the part of each
// node's WAL it needs is then read (BoundToIncrement).
std::optional<std::pair<std::string, uint32_t>> IgniteIncrementOf(const RestoreChoice& choice,
                                                                  const std::map<std::string, WalInput>& inputs);

}  // namespace app
