// walcut: wires the subcommands and turns every failure into one line and an exit code.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <exception>

#include <CLI/CLI.hpp>

#include "tools/command.h"
#include "tools/output.h"
#include "tools/version.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

}  // namespace

int main(int argc, char** argv) {
  tools::FdSink out(STDOUT_FILENO, 1 << 20);
  tools::FdSink err(STDERR_FILENO, 0);
  tools::Output output{&out, &err, isatty(STDERR_FILENO) != 0};
  tools::CommandContext ctx;
  ctx.output = &output;
  ctx.stop = &g_stop;
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"walcut: write-ahead log toolkit for partitioned, replicated, transactional "
               "key-value stores"};
  app.name("walcut");
  app.set_version_flag("--version", std::string("walcut ") + tools::kVersion);
  app.require_subcommand(1);
  tools::RegisterDump(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    output.Error("{}", msg);
    output.Hint("run \"walcut --help\" or \"walcut COMMAND --help\"");
    return tools::kExitUsage;
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  try {
    int rc = ctx.run ? ctx.run() : tools::kExitUsage;
    out.Flush();
    return rc;
  } catch (const std::bad_alloc&) {
    output.Error("out of memory");
  } catch (const std::exception& e) {
    output.Error("internal error: {}", e.what());
  }
  return tools::kExitInternal;
}
