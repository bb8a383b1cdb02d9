// `walcut info`: one screen of what a cluster's directories hold and what can be restored
// from them: each base or full snapshot with its nodes and size, each cut of it with its
// status, times, WAL range and restorability, and what a prune would free.
#pragma once

#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct InfoOptions {
  std::vector<std::string> paths;
  bool json = false;
  bool quiet = false;
};

int RunInfo(const InfoOptions& options, Output& output);

}  // namespace tools
