// Apache Ignite keeps each increment it completes on every baseline node as
// snapshots/<name>/increments/<index>/<folder>.smf (Java serialization of its
// IncrementalSnapshotMetadata). A cut whose Start and Finish records every node wrote is
// still no increment when Ignite failed it for a reason outside the WAL (a node left, a
// rebalance with the WAL disabled): only the metadata says. This reads which cuts each
// node's metadata names, by the request id (the cut's id) as Java writes a UUID.
#pragma once

#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "tools/inputs.h"

namespace tools {

// For the Ignite nodes of `inputs` whose work directory has a snapshots/ folder: each
// consistent cut becomes the increment its metadata names (snapshot and index), or, when
// a node's metadata does not name it, is marked not-kept (status incomplete: Ignite failed
// it). Nothing changes when no input is such a node.
void ApplyIgniteIncrements(const std::vector<WalInput>& inputs, cut::ClusterReport* report);

}  // namespace tools
