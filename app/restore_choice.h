// What `restore`'s options choose, checked before and after the cuts are found: which
// consistent cut (--cut, --increment, --latest, --time, of --snapshot), which Ignite
// increment bounds the reading, and whether --node, --cache and --partition name what the
// inputs hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"
#include "libwal/status.h"
#include "recovery/restore.h"

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

// Apache Ignite's nodes among a restore's inputs: where each one's WAL lies, the input
// itself and the folders of their binary metadata. Empty for walcut's cluster directory.
// kInvalidArgument for a single segment file, Ignite's nodes beside walcut's, or several
// directories (`several_dirs`) of walcut's.
struct IgniteRestoreInputs {
  std::map<std::string, wal::WalLocation> wals;
  std::map<std::string, WalInput> inputs;
  std::vector<std::string> binary_meta_dirs;
};
wal::Result<IgniteRestoreInputs> IgniteRestoreInputsOf(const WalInputs& resolved, const std::string& dir,
                                                       bool several_dirs);

// The plan of the restore of cut `chosen`: from the base snapshot and each node's WAL
// (walcut's cluster directory `dir`), or Apache Ignite's increment (`ignite` not empty);
// each node restricted to the choice's caches and partitions, and given the records the
// check kept of its WAL (`kept`) where that node was read without an error.
wal::Result<recovery::RestorePlan> PlanChosenRestore(
    const std::string& dir, const IgniteRestoreInputs& ignite, const std::vector<cut::NodeIndex>& indexes,
    const cut::ClusterReport& report, size_t chosen, const RestoreChoice& choice,
    const std::map<std::string, std::shared_ptr<recovery::KeptRecords>>& kept);

}  // namespace app
