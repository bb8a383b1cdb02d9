// Where `cuts` and `check` get their per-node cut indexes: the node WALs of a cluster or
// node directory, read here, or summary files written on the nodes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "tools/json_writer.h"
#include "tools/output.h"

namespace tools {

// The inputs of a cut analysis, node WAL directories only; on failure prints the error
// and returns the exit code in *code.
// `cluster_above`: a node directory given on its own takes the cluster file above it
// (app::ResolveWalInputs).
bool ResolveNodes(const std::vector<std::string>& paths, Output& output, app::WalInputs* out, int* code,
                  bool cluster_above = false);
// A node's torn tail (a warning) and its first read errors.
void PrintReadErrors(const cut::NodeIndex& index, Output& output);

// Builds the indexes of every server node under `paths` (a node whose WAL cannot be
// opened gets an index saying so) and reads the cluster file of a cluster directory
// into *cluster, and, when `kept` is given, the increments Ignite nodes keep
// (app::KeptIncrementsOf); on failure prints the error and returns the exit code in *code.
bool LoadIndexesFromWal(const std::vector<std::string>& paths, Output& output, std::vector<cut::NodeIndex>* out,
                        std::optional<cut::ClusterInfo>* cluster, int* code,
                        std::optional<std::vector<cut::NodeKept>>* kept = nullptr);
// How CheckFromWal reads.
struct WalCheck {
  // When not empty, the cluster file to take the baseline from (for node directories
  // given one by one).
  std::string cluster_file;
  // The nodes' cuts keep their Finish records' sets (CheckClusterStreaming).
  bool keep_sets = false;
  // The words of the progress line.
  std::string progress = "reading the WALs";
  // When set, tap(i, node) is called for the i-th node of the inputs, before its WAL is
  // read: what it returns sees each record of that WAL, in order, on one thread at a time.
  std::function<cut::RecordTap(size_t, const app::WalInput&)> tap;
  // Threads reading the WALs, taking the nodes in turn; 0: one per core.
  size_t threads = 0;
  // A node directory given on its own takes the cluster file above it as the cluster's
  // membership, so that the nodes not given fail the check (check's verdict is about the
  // cluster; a node's own listing or summary is not).
  bool membership_from_above = false;
  // Apache Ignite: only the part of each node's WAL that this increment (of this full
  // snapshot; empty: the one taken last) needs (app::BoundToIncrement).
  std::optional<std::pair<std::string, uint32_t>> increment;
  // Or the increment whose cut id begins with this, where the increments' metadata names
  // one (app::IncrementOfCut).
  std::optional<std::string> increment_of_cut;
};

// Checks the cluster under `paths` cut by cut while reading its node WALs (how.threads
// threads taking the nodes in turn), then prints each node's first read errors.
// `inputs`, when given, receives what the paths resolved to (the nodes in their order,
// the cluster file).
bool CheckFromWal(const std::vector<std::string>& paths, const WalCheck& how, Output& output, cut::StreamedCluster* out,
                  int* code, app::WalInputs* inputs = nullptr);
// The streamed check's nodes (out->nodes, in node order) moved into `out` in the order the
// inputs gave them, so that (*out)[k] is the index of inputs.nodes[k]. An input node the
// check did not index is refused (exit status 3), never paired with another's index.
bool InInputOrder(const app::WalInputs& inputs, std::vector<cut::NodeIndex>&& nodes, Output& output,
                  std::vector<cut::NodeIndex>* out, int* code);
// The cuts of one directory, as CheckFromWal finds them, with the nodes' indexes in the
// order of the inputs.
struct DirCuts {
  app::WalInputs inputs;
  std::vector<cut::NodeIndex> indexes;
  cut::ClusterReport report;
};
bool CheckDir(const std::string& dir, const WalCheck& how, Output& output, DirCuts* out, int* code);
// The same of several paths (Ignite's: a snapshot directory of each node, say).
bool CheckDirs(const std::vector<std::string>& paths, const WalCheck& how, Output& output, DirCuts* out, int* code);
// Checks the cluster of the summary files `files` cut by cut, each file read as the check
// goes (summary_file.h). A file that cannot be opened, two of one node or one node order,
// or damage found part way through any of them is an error: no report then.
bool CheckFromSummaries(const std::vector<std::string>& files, const cut::ClusterInfo* cluster, Output& output,
                        cut::ClusterReport* out, int* code);
// Reads `path` as a cluster file (--cluster FILE).
bool LoadClusterFile(const std::string& path, Output& output, std::optional<cut::ClusterInfo>* out, int* code);
// Prints the problems of nodes as a whole (unreadable, foreign, damaged) as errors.
void PrintNodeProblems(const cut::ClusterReport& report, Output& output);

// The cuts whose id starts with `prefix` (case-insensitive); exactly one must match.
bool SelectCut(const cut::ClusterReport& report, const std::string& prefix, Output& output, size_t* index, int* code);

// "cut <id>: consistent, increment 2 of \"base\"" and the like.
std::string CutHeadline(const cut::CutReport& c);
// The JSON object of one violation.
void WriteViolation(JsonWriter& j, const cut::Violation& v);

}  // namespace tools
