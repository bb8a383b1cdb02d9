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
// Only the increments' range of the WAL is read, from the files the cut was checked on:
// the node's archive where it still holds those segments, else the copies the increments
// keep (the live archive may have been truncated long before; a rebalance's writes are in
// the full snapshot when it followed one).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "libwal/wal_reader.h"
#include "recovery/restore.h"

namespace recovery {

// What a node's restore of an increment reads of its WAL, kept as the check reads the same
// files (a cut::RecordTap), so that the replay does not read them a second time: from the
// full snapshot's CLUSTER_SNAPSHOT record (`from`) to the Finish record of cut `cut_id`, the
// records the replay looks at (DATA_RECORD_V2's entries; the snapshot, Start and Finish
// records; data records it cannot apply) and the size of every record. Every node's
// records share one budget of bytes: past it, a node's are let go, and its replay reads
// the WAL itself.
class KeptRecords {
 public:
  // The budget of every node's kept records together, shared; `bytes` 0: a quarter of
  // the machine's memory, at most 2 GiB.
  static std::shared_ptr<std::atomic<int64_t>> Budget(int64_t bytes = 0);
  KeptRecords(wal::Pointer from, wal::Uuid cut_id, std::shared_ptr<std::atomic<int64_t>> budget);
  ~KeptRecords();
  KeptRecords(const KeptRecords&) = delete;
  KeptRecords& operator=(const KeptRecords&) = delete;

  void Add(const wal::Record& r);  // each record of the WAL, in order
  // Every record from `from` to the Finish record was kept.
  bool complete() const { return finished_ && !dropped_; }
  const wal::Pointer& from() const { return from_; }
  const wal::Uuid& cut_id() const { return cut_id_; }
  // Hands each kept record to `fn`, in WAL order, as the reader would (light: DATA
  // records as views), with its size and that of the records not kept before it; stops at
  // the first status that is not ok, or when `*stop` is set.
  wal::Status ForEach(const std::function<wal::Status(const wal::Record&, uint64_t bytes)>& fn, const bool* stop) const;

 private:
  struct Item {
    wal::Pointer ptr;
    uint64_t size = 0;  // its own and those of the records not kept before it
    uint8_t type = 0;
    wal::SegmentFormat format = wal::SegmentFormat::kWalcut;
    uint32_t count = 0;
    uint64_t timestamp = 0;
    wal::Uuid id;
    const char* bytes = nullptr;  // in chunks_: DATA entries or a snapshot's name
    uint64_t length = 0;
  };
  void Drop();
  // Room for `n` more bytes (a new chunk when the last one is full), false past the budget.
  char* Room(size_t n);

  wal::Pointer from_;
  wal::Uuid cut_id_;
  std::shared_ptr<std::atomic<int64_t>> budget_;
  int64_t taken_ = 0;
  uint64_t skipped_bytes_ = 0;  // of records not kept since the last kept one
  bool finished_ = false, dropped_ = false;
  std::vector<Item> items_;
  // The bytes kept, in chunks that never move (no copy as they grow).
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0, chunk_size_ = 0;
};

// `plan.ignite_store` is the node's part of the full snapshot (db/<folder>/), `plan.wal`
// holds the increments' segments (or `plan.kept`, their records as the check read them),
// `plan.from` the CLUSTER_SNAPSHOT record,
// `plan.finish` the increment's Finish record, `plan.before` / `plan.after` its included
// and excluded sets. kCorruption for a damaged page file or WAL range, a WAL without the
// snapshot's record before the Finish record, or an entry of a partition the node's
// snapshot does not hold (Ignite's restore fails on it too); kNotSupported for entries
// walcut cannot apply (encrypted or legacy data records, TRANSFORM or RELOAD entries).
wal::Result<NodeResult> RestoreIgniteIncrement(const NodePlan& plan, const ProgressFn& progress);

// Sets where node `np->node`'s restore of increment `increment` of `snapshot` begins
// and what it reads, from the snapshot directory `snapshot_dir` (snapshots/<snapshot>,
// or a copy of it): its page files (db/<folder>/), the CLUSTER_SNAPSHOT record's pointer
// from its metadata (<folder>.smf), the WAL to read (`live`: the node's WAL as the check
// read it, its archive and work folder then the increments' copies; when empty, the
// increments' folders increments/<1..N>/db/wal/<folder>/), and the previous increment's id from its
// metadata. kNotFound when the snapshot holds no page files of the node; kCorruption
// when its metadata cannot be read or names another snapshot or node.
wal::Status PlaceIgniteSnapshotNode(const std::string& snapshot_dir, const std::string& snapshot, uint32_t increment,
                                    const wal::WalLocation& live, NodePlan* np);

// Every page file of the plan's nodes read and checked, as the restore reads them.
wal::Status CheckIgniteBase(const NodePlan& plan);

}  // namespace recovery
