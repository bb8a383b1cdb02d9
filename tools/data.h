// `walcut data`: the contents of partition data files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct DataOptions {
  std::string path;
  std::vector<std::string> nodes;
  std::optional<uint32_t> partition;
  bool json = false;
  bool quiet = false;
  bool summary = false;  // no entries, one line per partition file
};

int RunData(const DataOptions& options, Output& output);

}  // namespace tools
