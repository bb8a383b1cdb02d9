// Apache Ignite's copies of a partition, compared by update counter: the primary gives each
// update of a partition its counter, and every backup writes the update with that counter.
// So the updates Ignite's restore of an increment applies to a partition's copies, from the
// full snapshot's record (a point where every copy was alike) to the increment's Finish
// record, carry the same counters on every node that holds a copy; a node where some are
// missing (a transaction lost there, its records gone) would restore a copy that differs.
// This is how the cluster check sees such a loss on Ignite's WAL, whose records name a
// transaction's participants by ids the WAL does not map to nodes (the participant rule of
// walcut's own format, cut_join.h, needs them).
//
// One node's side: fed its entries and cut records in WAL order, it gives each increment
// the counters its restore applies, by Ignite's rule (IncrementalSnapshotProcessor): every
// update up to the previous increment's Finish record; from there to the Start record,
// those of transactions the Finish record does not exclude; from the Start record to the
// Finish record, those it includes. Updates of no transaction (ATOMIC caches, rebalances)
// are not compared: Ignite keeps no consistency for them across a cut.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "libwal/ids.h"

namespace cut {

class VarintWriter;  // varint_codec.h
class VarintReader;

// Sorted, disjoint, inclusive ranges of update counters.
using CounterRanges = std::vector<std::pair<uint64_t, uint64_t>>;

// The counters one copy (a cache's part of a partition) applies at an increment.
struct CopyCounters {
  uint32_t cache = 0;
  uint32_t partition = 0;
  CounterRanges counters;
};

// An update of the increment's own window that the restore applies: which transaction
// wrote counter `counter` (for naming it when copies differ).
struct WindowUpdate {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t counter = 0;
  wal::TxId xid;
};

// What a node's restore of an increment applies, for the comparison of copies (set on the
// cut's CutOnNode). `known` is false where the reading cannot tell (it did not begin at the
// full snapshot's record, a read error fell after it, records came in a shape Ignite does
// not write): the copies are then not compared.
struct AppliedCounters {
  bool known = false;
  std::vector<CopyCounters> copies;  // by (cache, partition)
  std::vector<WindowUpdate> window;  // in WAL order
};

class CounterFollower {
 public:
  // A full snapshot's record: what is compared begins here.
  void OnSnapshot();
  void OnUpdate(uint32_t cache, uint32_t partition, uint64_t counter, const wal::TxId& xid);
  void OnStart();
  // The Finish record of a cut whose Start came before it, with its sets: what the cut's
  // restore applies.
  AppliedCounters OnFinish(const std::vector<wal::TxId>& included, const std::vector<wal::TxId>& excluded);
  // A read error, or anything else after which updates may be missing: nothing is known
  // until the next full snapshot's record.
  void Lose();
  // The state, for a reading resumed later (NodeIndexStream checkpoints, index_state.cc).
  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  struct Pending {
    uint32_t cache, partition;
    uint64_t counter;
    wal::TxId xid;
    bool after_start;
  };
  bool known_ = false;
  bool started_ = false;  // a Start read, its Finish not yet
  // Every update up to the last Finish record, by cache << 32 | partition.
  std::unordered_map<uint64_t, CounterRanges> settled_;
  std::vector<Pending> pending_;  // since then
};

// Adds `c` to `r`, keeping it sorted and merged.
void AddCounter(CounterRanges& r, uint64_t c);

// What a cut's restore applies, in a node summary's cut frame and a resume state
// (walcut-format(5), NODE SUMMARIES): U known; then U copies, each the cache and partition
// as deltas in (cache, partition) order and its ranges as gaps and lengths; U window
// updates, each cache, partition and counter as signed deltas and the transaction. A
// decoder refuses copies out of order and ranges that overlap.
void PutAppliedCounters(VarintWriter& o, const AppliedCounters& a);
AppliedCounters GetAppliedCounters(VarintReader& in);  // a fault stops `in`

}  // namespace cut
