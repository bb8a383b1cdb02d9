// Where `cuts` and `check` get their per-node cut indexes: the node WALs of a cluster or
// node directory, read here, or summary files written on the nodes.
#pragma once

#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "tools/output.h"

namespace tools {

// Builds the indexes of every server node under `paths`; on failure prints the error
// and returns the exit code in *code.
bool LoadIndexesFromWal(const std::vector<std::string>& paths, Output& output,
                        std::vector<cut::NodeIndex>* out, int* code);
// Checks the cluster under `paths` cut by cut while reading its node WALs (one thread
// per node), then prints each node's first read errors.
bool CheckFromWal(const std::vector<std::string>& paths, Output& output, cut::StreamedCluster* out, int* code);
bool LoadIndexesFromSummaries(const std::vector<std::string>& files, Output& output,
                              std::vector<cut::NodeIndex>* out, int* code);

// The cuts whose id starts with `prefix` (case-insensitive); exactly one must match.
bool SelectCut(const cut::ClusterReport& report, const std::string& prefix, Output& output,
               size_t* index, int* code);

// "cut <id>: consistent, increment 2 of \"base\"" and the like.
std::string CutHeadline(const cut::CutReport& c);
// The JSON object of one violation.
std::string ViolationJson(const cut::Violation& v);

}  // namespace tools
