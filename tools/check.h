// `walcut check`: the proof, cut by cut, that a cluster's cuts are consistent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct CheckOptions {
  std::vector<std::string> paths;
  std::vector<std::string> summaries;
  std::string cluster_file;  // --cluster FILE: the baseline for nodes given one by one
  std::optional<std::string> cut;
  std::optional<uint32_t> increment;  // the cut that is increment N of `snapshot` (empty: the latest)
  std::string snapshot;
  bool json = false;
  bool quiet = false;
};

int RunCheck(const CheckOptions& options, Output& output);

}  // namespace tools
