// `check --summaries` (walcut-check(1)): the cluster of the node summaries that `cuts
// --summary` wrote on the nodes, checked cut by cut, each file read as the check goes
// (libcut/summary_file.h), a decoding thread per core.
#pragma once

#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "libcut/cluster_file.h"
#include "libwal/status.h"

namespace app {

// The report of the check. Refused, naming the file: a file that cannot be opened or is no
// summary (its own status); two summaries of one node (kAlreadyExists: that node is given
// already); two nodes that claim one node order (kCorruption); damage found part way
// through any file (its status). No report then.
wal::Result<cut::ClusterReport> CheckSummaries(const std::vector<std::string>& files, const cut::ClusterInfo* cluster);

// The cluster file at `path` (--cluster FILE), read and validated.
wal::Result<cut::ClusterInfo> ReadClusterFile(const std::string& path);

}  // namespace app
