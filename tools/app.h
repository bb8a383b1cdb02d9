// The whole command line as a function: main() calls it with the process's streams,
// tests with string sinks.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

// SIGINT and SIGTERM. A command that writes what must not be left half done (restore,
// simulate, gaps --close, dump --follow) declares itself `cancellable` when its writing
// starts: a signal then sets `stop`, and the command removes what it was writing and
// returns kExitInterrupted. Until then, and in any other command, the signal stops the
// process at once (nothing written needs undoing). `signal` is the signal received, for
// the exit status.
struct Interrupt {
  std::atomic<bool> stop{false};
  std::atomic<int> signal{0};
  std::atomic<bool> cancellable{false};
};

int RunWalcut(const std::vector<std::string>& args, Output& output, Interrupt* interrupt = nullptr);

}  // namespace tools
