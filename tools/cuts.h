// `walcut cuts`: the cuts of a cluster, a node's summary, a cut's timeline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct CutsOptions {
  std::vector<std::string> paths;
  std::string summary_out;  // --summary FILE: write the node's index instead of listing
  bool summary_json = false;  // --summary-format json
  bool append = false;        // --append: read only what is new since FILE (FILE.resume)
  std::string svg_out;      // --svg FILE: also draw the timeline of one cut
  std::optional<std::string> cut;  // the cut drawn (default: the latest consistent one)
  bool axis_offset = false;
  std::optional<double> from, to;
  bool json = false;
  bool quiet = false;
};

int RunCuts(const CutsOptions& options, Output& output);

}  // namespace tools
