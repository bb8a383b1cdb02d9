// The cluster check's comparison of Apache Ignite's partition copies at a cut, by the update
// counters each node's restore of the increment applies (copy_counters.h): copies-differ.
#pragma once

#include <vector>

#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"

namespace cut {

// For each (cache, partition) with copies on several of `nodes` whose applied counters are
// known (on[i]->applied), a copy lacking a counter another copy applies is a copies-differ
// violation, naming the transaction of the first such counter where the increment's window
// holds it. Differences the cut's side-mismatch violations already name are not reported
// again. One violation per partition and node lacking. A node is compared only on the
// partitions it applied an update of: one that lost every update of a partition since the
// full snapshot is not seen here (restore's comparison of the copies still refuses it).
void CheckCopies(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on,
                 CutReport& report);

}  // namespace cut
