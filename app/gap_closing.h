// Partition update-counter gaps across a cluster's nodes and their closing (`walcut gaps`):
// every node's gaps read on threads, which of them a rollback record may close, and the
// records appended durably to a node's WAL. tools/gaps.cc prints them.
#pragma once

#include <vector>

#include "app/inputs.h"
#include "libwal/record.h"
#include "libwal/status.h"
#include "recovery/gaps.h"

namespace app {

// Every node's gaps, read on as many threads as there are cores (one pass per node; an
// Ignite node with its shared cache groups and its snapshots' low-water marks); with
// `cluster`, each gap's owner is looked for among the other nodes' commits. The first
// node that cannot be read fails the whole scan.
wal::Result<std::vector<recovery::NodeGaps>> ScanClusterGaps(const std::vector<WalInput>& inputs, bool cluster);

// Whether a rollback record may close gap `g`: never one whose transaction committed here
// or on another node (or whose fate is unknown); a rolled-back one always; a prepared one
// with the cluster read (`cluster`: its commit would be seen) or when finalizing; one with
// no owner only when finalizing.
bool Closable(const recovery::CounterGap& g, bool cluster, bool finalize);

// What closing the gaps of node `n` would write: a ROLLBACK_TX_RECORD per closable gap.
std::vector<wal::RollbackRecord> RollbacksFor(const recovery::NodeGaps& n, bool cluster, bool finalize);

// Appends `records` to the WAL of `n` and syncs it before returning where each was
// written; an error names the node.
wal::Result<std::vector<wal::Pointer>> AppendRollbacks(const recovery::NodeGaps& n,
                                                       const std::vector<wal::RollbackRecord>& records);

}  // namespace app
