// The nesting of increments: the Before side of a consistent cut contains the Before
// side of the consistent cut of the same base before it, on every node (not-nested).
#pragma once

#include <vector>

#include "libcut/cut_join.h"
#include "libcut/id_set.h"

namespace cut {

// Whether NestingCheck can find anything, from the joins of the two cuts alone: some
// transaction Before on a node in `prev` and After (or listed after) there in `next`.
// False is a proof; true, or joins that cannot tell, send the cuts to NestingCheck.
bool NestingMayFail(const CutJoin& prev, const CutJoin& next, const wal::Uuid& next_id);

// Keeps its tables between cuts.
class NestingCheck {
 public:
  // Reports each transaction Before in `prev` and After in `next` on some node into
  // `next`. `join`: the join of `next`, when JoinCut built it.
  void Check(const std::vector<const NodeIndex*>& nodes, const CutReport& prev, CutReport& next, const CutJoin& join);

 private:
  TxTable table_;  // a node's After transactions of `next`, when the join cannot tell
  IdSet listed_;   // a node's after set of `next`
};

}  // namespace cut
