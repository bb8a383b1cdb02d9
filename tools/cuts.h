// `walcut cuts` and `walcut check`: the cuts of a cluster, and their proof.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct CutsOptions {
  std::vector<std::string> paths;
  std::string summary_out;  // --summary FILE: write the node's index instead of listing
  std::string svg_out;      // --svg FILE: also draw the timeline of one cut
  std::optional<std::string> cut;  // the cut drawn (default: the latest consistent one)
  bool axis_offset = false;
  std::optional<double> from, to;
  bool json = false;
  bool quiet = false;
};

struct CheckOptions {
  std::vector<std::string> paths;
  std::vector<std::string> summaries;
  std::string cluster_file;  // --cluster FILE: the baseline for nodes given one by one
  std::optional<std::string> cut;
  bool json = false;
  bool quiet = false;
};

int RunCuts(const CutsOptions& options, Output& output);
int RunCheck(const CheckOptions& options, Output& output);

}  // namespace tools
