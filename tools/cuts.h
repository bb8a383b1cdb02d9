// `walcut cuts`: the cuts of a cluster, a node's summary, a cut's timeline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/increment_windows.h"
#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"
#include "tools/increments.h"
#include "tools/output.h"

namespace tools {

struct CutsOptions {
  std::vector<std::string> paths;
  std::string summary_out;         // --summary FILE: write the node's index instead of listing
  bool summary_json = false;       // --summary-format json
  bool append = false;             // --append: read only what is new since FILE (FILE.resume)
  std::string svg_out;             // --svg FILE: also draw the timeline of one cut
  std::optional<std::string> cut;  // the cut drawn (default: the latest consistent one)
  bool axis_offset = false;
  std::optional<double> from, to;
  bool json = false;
  bool quiet = false;
};

int RunCuts(const CutsOptions& options, Output& output);

// The cuts of `paths` as `cuts` lists them, each record counted on the way: the report
// (its node problems printed), the nodes' indexes in the order of the inputs, each cut's
// increment window (when every node was read) and whether it can be restored now
// (unknown for inputs restore does not take). On failure prints the error and returns
// the exit code in *code.
struct CutListing {
  app::WalInputs inputs;
  std::vector<cut::NodeIndex> indexes;
  cut::ClusterReport report;
  std::vector<std::optional<app::IncrementWindow>> windows;
  std::optional<std::vector<app::Restorable>> restorable;
};
bool ListCuts(const std::vector<std::string>& paths, Output& output, CutListing* out, int* code);

}  // namespace tools
