// The side of a cut a transaction is on, on one node: the seed rule, stated once and
// called by everything that places transactions (the cut index and check, restore, txs,
// the timeline). walcut-cuts(1) and walcut-format(5) state it for users.
//
//   A transaction's commit on a node is its first COMMITTED or UNKNOWN TX_RECORD there
//   (a transaction with several roles on the node commits each role; the first counts);
//   on Apache Ignite's WAL it may be placed at its last data entry (commit_place.h).
//   It is Before the cut when committed before the node's Start record and not in the
//   Finish record's After set, or committed between the Start and the Finish record and
//   in its Before set; it is After otherwise.
#pragma once

#include <cstdint>

#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

enum class Side : uint8_t { kBefore, kAfter };

// Whether a TX_RECORD of state `s` is a commit: COMMITTED, or UNKNOWN (the node applied
// the writes; restore replays them).
inline bool IsCommit(wal::TxState s) { return s == wal::TxState::kCommitted || s == wal::TxState::kUnknown; }

// Where a commit lies relative to the node's Start and Finish records of the cut.
enum class Region : uint8_t { kBeforeStart, kBetween, kAfterFinish };

inline Region RegionOf(const wal::Pointer& commit, const wal::Pointer& start, const wal::Pointer& finish) {
  if (commit < start) return Region::kBeforeStart;
  if (commit < finish) return Region::kBetween;
  return Region::kAfterFinish;
}

// The rule. `in_before()` and `in_after()` tell whether the Finish record lists the
// transaction in its Before or After set; each is asked only when the rule needs it.
template <typename InBefore, typename InAfter>
inline Side SideOfCommit(Region where, InBefore&& in_before, InAfter&& in_after) {
  switch (where) {
    case Region::kBeforeStart: return in_after() ? Side::kAfter : Side::kBefore;
    case Region::kBetween: return in_before() ? Side::kBefore : Side::kAfter;
    case Region::kAfterFinish: break;
  }
  return Side::kAfter;
}

}  // namespace cut
