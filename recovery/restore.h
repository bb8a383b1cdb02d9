// Point-in-time restore to a consistent cut: plan (base snapshot, WAL range, which
// transactions to apply), apply per node (load the base partitions, replay the Before
// side of the cut, finalize counters), and the result as partition files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "libwal/segment_file.h"
#include "recovery/partition_file.h"

namespace recovery {

class KeptRecords;  // ignite_restore.h

struct NodePlan {
  std::string node;
  std::string node_dir;
  std::string base_dir;  // NODE/snapshots/<base>; empty for Ignite's WAL
  wal::WalLocation wal;  // where its WAL lies (NODE/wal; Ignite's archive and work folders)
  // Apache Ignite's WAL: keys and values kept as Ignite's cache objects (their type byte,
  // then their bytes); replayed from the node's first record onto empty copies unless
  // `ignite_store` names the full snapshot's page files.
  bool ignite = false;
  // Apache Ignite's increment restored from its full snapshot (ignite_restore.h): the
  // node's part of the snapshot (its page files, db/<folder>/), the snapshot's name, the
  // increment's id and the previous increment's (nil for increment 1). Empty: Ignite's
  // WAL replayed from its first record.
  std::string ignite_store;
  std::string snapshot;
  wal::Uuid cut_id, previous_cut;
  wal::Pointer from;  // the base's ClusterSnapshotRecord (Ignite: 0:0)
  // Ignite's increment: the records of the range to replay, kept as the check read them
  // (ignite_restore.h); null, or not complete: the replay reads the WAL.
  std::shared_ptr<const KeptRecords> kept;
  wal::Pointer start, finish;  // the cut's records on this node
  std::vector<wal::TxId> before, after;
  // Restore only these caches and partitions (empty: all): the base's other partition
  // files are not loaded, and the writes to them not applied.
  std::vector<uint32_t> only_caches, only_partitions;
  bool Selected(uint32_t c, uint32_t p) const {
    return (only_caches.empty() || std::find(only_caches.begin(), only_caches.end(), c) != only_caches.end()) &&
           (only_partitions.empty() ||
            std::find(only_partitions.begin(), only_partitions.end(), p) != only_partitions.end());
  }
};

struct RestorePlan {
  wal::Uuid cut;
  uint32_t increment = 0;
  std::string base;
  uint32_t topology_version = 0;  // of the cut: whose assignment the copies follow
  uint64_t finish_ts = 0;
  std::vector<NodePlan> nodes;
};

// Chooses and validates: the cut must be consistent on every node, the base snapshot's
// record where its snapshot.json says and its partition files present, the WAL range free
// of damage as far as the indexes read it. kInvalidArgument / kCorruption /
// kNotFound with a message naming the cut, file and offset otherwise.
wal::Result<RestorePlan> PlanRestore(const std::string& cluster_dir, const std::vector<cut::NodeIndex>& indexes,
                                     const cut::ClusterReport& report, size_t cut_index,
                                     const std::vector<std::string>& only_nodes);

// The same for Apache Ignite's WAL (`wals`: each node's, by name): there is no base to
// load, so every node's WAL must reach back to its first segment (0) and be whole from
// there to the cut's Finish record; kNotFound naming the node and the first segment
// there otherwise.
wal::Result<RestorePlan> PlanIgniteRestore(const std::map<std::string, wal::WalLocation>& wals,
                                           const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report,
                                           size_t cut_index, const std::vector<std::string>& only_nodes);

// The same for an Apache Ignite increment restored from its full snapshot, as Ignite
// restores it (ignite_restore.h): `snapshot_dirs` gives each node's snapshot directory
// of a snapshot name (snapshots/<name>, or a copy of it), `live` its own WAL; kNotFound
// when a node's snapshot holds no page files of it.
wal::Result<RestorePlan> PlanIgniteSnapshotRestore(
    const std::function<std::string(const std::string& node, const std::string& snapshot)>& snapshot_dirs,
    const std::map<std::string, wal::WalLocation>& live, const std::vector<cut::NodeIndex>& indexes,
    const cut::ClusterReport& report, size_t cut_index, const std::vector<std::string>& only_nodes);

// Reads and verifies every partition file of the plan's base snapshots (a dry run's
// check; a restore verifies each as it loads it).
wal::Status CheckBase(const RestorePlan& plan);

struct NodeResult {
  std::string node;
  uint64_t txs_applied = 0;
  uint64_t txs_skipped = 0;
  uint64_t entries = 0;
  uint64_t rollbacks_applied = 0;
  uint64_t gaps_closed = 0;
  uint64_t wal_bytes = 0;
  wal::Pointer read_from, read_to;
  std::vector<PartitionFile> partitions;
  std::vector<std::string> warnings;
};

// Progress of one node: bytes of WAL replayed so far.
using ProgressFn = std::function<void(const std::string& node, uint64_t bytes)>;

wal::Result<NodeResult> RestoreNode(const NodePlan& plan, const ProgressFn& progress);

// The segment files of `wal_dir` from `from`'s segment to `to`'s, each index present
// (a second file of one index is kept for the reader to compare); kCorruption naming the
// first index missing. Only this range is read: damage outside it does not matter.
wal::Result<std::vector<wal::SegmentFile>> SegmentsOfRange(const std::string& node, const wal::WalLocation& wal_dir,
                                                           const wal::Pointer& from, const wal::Pointer& to);

}  // namespace recovery
