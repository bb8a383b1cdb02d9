// Restore of an Apache Ignite increment as Ignite restores it (SnapshotRestoreProcess
// and IncrementalSnapshotProcessor), node by node: the full snapshot's partition copies,
// read from its page files, then the increments' WAL from the full snapshot's
// CLUSTER_SNAPSHOT record to the increment's Finish record, each DATA_RECORD_V2 entry of
// a cache the snapshot holds applied in WAL order, unconditionally (a put, or a removal),
// when its transaction passes the increment's filter:
//   - from the CLUSTER_SNAPSHOT record: every entry (increment 1: all but the Finish
//     record's excluded set);
//   - from the Finish record of increment N-1: all but N's excluded set;
//   - from N's Start record: N's included set only.
// An entry of no transaction (an ATOMIC cache's, or a rebalance's) passes until N's Start
// record and not after it. Each entry applied raises its group partition's counter
// (update(counter - 1, 1) from the snapshot's counter), whose gaps are closed at the end.
// Only the increment's own WAL is read: the live archive may have been truncated long
// before, and a rebalance's writes are in the full snapshot when it followed one.
#pragma once

#include "recovery/restore.h"

namespace recovery {

// `plan.ignite_store` is the node's part of the full snapshot (db/<folder>/), `plan.wal`
// holds the increments' segments, `plan.from` the CLUSTER_SNAPSHOT record,
// `plan.finish` the increment's Finish record, `plan.before` / `plan.after` its included
// and excluded sets. kCorruption for a damaged page file or WAL range, a WAL without the
// snapshot's record before the Finish record, or an entry of a partition the node's
// snapshot does not hold (Ignite's restore fails on it too); kNotSupported for entries
// walcut cannot apply (encrypted or legacy data records, TRANSFORM or RELOAD entries).
wal::Result<NodeResult> RestoreIgniteIncrement(const NodePlan& plan, const ProgressFn& progress);

// Sets where node `np->node`'s restore of increment `increment` of `snapshot` begins
// and what it reads, from the snapshot directory `snapshot_dir` (snapshots/<snapshot>,
// or a copy of it): its page files (db/<folder>/), the CLUSTER_SNAPSHOT record's pointer
// from its metadata (<folder>.smf), the WAL the increments keep
// (increments/<1..N>/db/wal/<folder>/; else `live`, the node's own WAL, when the
// increments' folders are not all there), and the previous increment's id from its
// metadata. kNotFound when the snapshot holds no page files of the node; kCorruption
// when its metadata cannot be read or names another snapshot or node.
wal::Status PlaceIgniteSnapshotNode(const std::string& snapshot_dir, const std::string& snapshot, uint32_t increment,
                                    const wal::WalLocation& live, NodePlan* np);

// Every page file of the plan's nodes read and checked, as the restore reads them.
wal::Status CheckIgniteBase(const NodePlan& plan);

}  // namespace recovery
