// walcut: the process around RunWalcut — streams, signals, exit code.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <string>
#include <vector>

#include "tools/app.h"
#include "tools/output.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

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
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc = tools::RunWalcut(args, output, &g_stop);
  out.Flush();
  return rc;
}
