// `walcut simulate`: run a simulated cluster and write its cluster directory.
#pragma once

#include <string>

#include "tools/output.h"
#include "tools/simulate/config.h"

namespace tools {

struct SimulateOptions {
  sim::SimConfig config;
  std::string out;
  bool json = false;
  bool quiet = false;
};

int RunSimulate(const SimulateOptions& options, Output& output);

}  // namespace tools
