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
  bool json = false;
  bool quiet = false;
};

struct CheckOptions {
  std::vector<std::string> paths;
  std::vector<std::string> summaries;
  std::optional<std::string> cut;
  bool json = false;
  bool quiet = false;
};

int RunCuts(const CutsOptions& options, Output& output);
int RunCheck(const CheckOptions& options, Output& output);

}  // namespace tools
