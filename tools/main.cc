// walcut: the process around RunWalcut — streams, signals, exit code.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <string>
#include <vector>

#include "tools/app.h"
#include "tools/crash_hook.h"
#include "tools/output.h"

namespace {

tools::Interrupt g_interrupt;

// Async-signal-safe: atomics, signal() and raise() only.
void OnSignal(int sig) {
  g_interrupt.signal.store(sig);
  if (g_interrupt.cancellable.load()) {
    g_interrupt.stop.store(true);
    return;
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  tools::FdSink out(STDOUT_FILENO, 1 << 20);
  tools::FdSink err(STDERR_FILENO, 0);
  tools::Output output{&out, &err, isatty(STDERR_FILENO) != 0};
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  tools::InstallCrashHookFromEnvironment();
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc = tools::RunWalcut(args, output, &g_interrupt);
  out.Flush();
  // A command stopped by a signal exits as the shell reports one: 128 + its number.
  const int sig = g_interrupt.signal.load();
  if (sig != 0 && rc == tools::kExitInterrupted) return 128 + sig;
  return rc;
}
