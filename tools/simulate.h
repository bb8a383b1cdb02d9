// `walcut simulate`: run a simulated cluster and write its cluster directory.
#pragma once

#include <atomic>

#include <string>

#include "sim/config.h"
#include "tools/output.h"

namespace tools {

struct SimulateOptions {
  sim::SimConfig config;
  std::string out;
  bool json = false;
  bool quiet = false;
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM
};

int RunSimulate(const SimulateOptions& options, Output& output);

}  // namespace tools
