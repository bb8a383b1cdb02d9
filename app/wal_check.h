// The check of a cluster read from its nodes' WALs (`check`, `cuts`, `restore`, `prune`,
// `diff`, `info`), cut by cut as the WALs are read, by reading threads that take the
// nodes in turn; for an Apache Ignite increment, each node read only as far as the
// increment needs, and again to its end where that reading finds anything amiss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_feed.h"

namespace app {

struct WalCheckOptions {
  // The nodes' cuts keep their Finish records' sets (CheckClusterStreaming).
  bool keep_sets = false;
  // When set, tap(i, node) is called for the i-th node of the inputs, before its WAL is
  // read: what it returns sees each record of that WAL, in order, on one thread at a time.
  std::function<cut::RecordTap(size_t, const WalInput&)> tap;
  // Threads reading the WALs, taking the nodes in turn.
  size_t threads = 1;
  // Apache Ignite: only the part of each node's WAL that this increment (of this full
  // snapshot; empty: the one taken last) needs (BoundToIncrement).
  std::optional<std::pair<std::string, uint32_t>> increment;
  // Or the increment whose cut id begins with this, where the increments' metadata names
  // one (IncrementOfCut).
  std::optional<std::string> increment_of_cut;
};

// Runs one reading of every node (`read`); `again` says it is the second, each node to its
// end. The caller wraps it (a progress line, say).
using ReadingPass = std::function<void(bool again, const std::function<void()>& read)>;

// The check of the cluster of `inputs` (its nodes bounded to the increment `how` names,
// if any). An increment's check reads each Ignite node only to its Finish record (and the
// commits that record lists After), as Ignite's own check reads the increment; what lies
// past it would be evidence against the cut only. So where that reading finds the cut
// anything but consistent, or any read error, the nodes are read again to their end, and
// the verdict and its violations are those of the whole reading.
cut::StreamedCluster CheckWal(WalInputs* inputs, const WalCheckOptions& how, const ReadingPass& pass);

}  // namespace app
