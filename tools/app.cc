#include "tools/app.h"

#include <algorithm>
#include <exception>

#include <CLI/CLI.hpp>

#include "tools/command.h"
#include "tools/version.h"

namespace tools {

namespace {

// CLI11 prints help and version to std::cout; route them through the output sink.
int Exit(CLI::App& app, const CLI::Error& e, Output& output) {
  std::ostringstream out, err;
  int rc = app.exit(e, out, err);
  output.out->Write(out.str());
  output.err->Write(err.str());
  return rc;
}

bool HasSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == name) return true;
  }
  return false;
}

}  // namespace

int RunWalcut(const std::vector<std::string>& args, Output& output, Interrupt* interrupt) {
  CommandContext ctx;
  ctx.output = &output;
  ctx.interrupt = interrupt;
  CLI::App app{"walcut: write-ahead log toolkit for partitioned, replicated, transactional "
               "key-value stores"};
  app.name("walcut");
  app.set_version_flag("--version", std::string("walcut ") + kVersion);
  app.require_subcommand(1);
  RegisterSimulate(app, ctx);
  RegisterDump(app, ctx);
  RegisterCuts(app, ctx);
  RegisterCheck(app, ctx);
  RegisterGaps(app, ctx);
  RegisterPrune(app, ctx);
  RegisterRestore(app, ctx);
  RegisterVerify(app, ctx);
  RegisterTxs(app, ctx);
  RegisterDiff(app, ctx);
  RegisterData(app, ctx);
  RegisterCompletion(app, ctx);

  std::vector<std::string> given = args;
  // The first word that is not an option names the command; name an unknown one as such
  // (not "a subcommand is required", nor the main help of `walcut bogus --help`).
  if (!given.empty() && !given[0].empty() && given[0][0] != '-') {
    if (given[0] == "help") {
      // `walcut help [COMMAND]` is `walcut [COMMAND] --help`.
      given.erase(given.begin());
      given.resize(std::min<size_t>(given.size(), 1));
      given.push_back("--help");
    }
    if (!given.empty() && given[0] != "--help" && !HasSubcommand(app, given[0])) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
      output.Error("unknown command \"{}\"", given[0]);
      output.Hint("the commands are {}, and help", names);
      return kExitUsage;
    }
  }
  std::vector<std::string> reversed(given.rbegin(), given.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return Exit(app, e, output);
  } catch (const CLI::CallForAllHelp& e) {
    return Exit(app, e, output);
  } catch (const CLI::CallForVersion& e) {
    return Exit(app, e, output);
  } catch (const CLI::ParseError& e) {
    output.Error("{}", e.what());
    output.Hint("run \"walcut --help\" or \"walcut COMMAND --help\"");
    return kExitUsage;
  }
  // Progress of long work on a terminal, unless the command is told to be quiet.
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  // (A command without --quiet, completion's, draws none either way.)
  const CLI::Option* quiet = chosen.empty() ? nullptr : chosen[0]->get_option_no_throw("--quiet");
  output.progress = output.err_is_terminal && quiet != nullptr && quiet->count() == 0;
  try {
    int rc = ctx.run ? ctx.run() : kExitUsage;
    output.out->Flush();
    return rc;
  } catch (const std::bad_alloc&) {
    output.Error("out of memory");
  } catch (const std::exception& e) {
    output.Error("internal error: {}", e.what());
  }
  output.out->Flush();
  return kExitInternal;
}

}  // namespace tools
