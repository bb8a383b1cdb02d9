// `walcut gaps`: partition update-counter gaps, and closing them with RollbackRecords.
#pragma once

#include <atomic>
#include <functional>

#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct GapsOptions {
  std::vector<std::string> paths;  // a cluster directory, node directories, Ignite work or snapshot directories
  bool close = false;
  bool dry_run = false;
  bool finalize = false;
  bool json = false;
  bool quiet = false;
  // Called when --close starts writing: from then on SIGINT/SIGTERM set the flag it
  // returns, polled between nodes (until then a signal ends the process at once).
  std::function<const std::atomic<bool>*()> cancellable;
};

int RunGaps(const GapsOptions& options, Output& output);

}  // namespace tools
