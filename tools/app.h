// The whole command line as a function: main() calls it with the process's streams,
// tests with string sinks.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

int RunWalcut(const std::vector<std::string>& args, Output& output,
              const std::atomic<bool>* stop = nullptr);

}  // namespace tools
