// `walcut gaps`: partition update-counter gaps, and closing them with RollbackRecords.
#pragma once

#include <atomic>

#include <string>

#include "tools/output.h"

namespace tools {

struct GapsOptions {
  std::string dir;
  bool close = false;
  bool dry_run = false;
  bool finalize = false;
  bool json = false;
  bool quiet = false;
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM: stop between nodes
};

int RunGaps(const GapsOptions& options, Output& output);

}  // namespace tools
