#include "tools/app.h"

#include <algorithm>
#include <exception>

#include <CLI/CLI.hpp>

#include "tools/command.h"
#include "tools/record_format.h"
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

// The edit distance of two words (Levenshtein), for "did you mean".
size_t Distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The word of `known` closest to `typed`, when it is close enough to be a slip (at most
// two edits, and fewer than half the word); empty otherwise.
std::string Closest(const std::string& typed, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = 3;
  for (const auto& k : known) {
    const size_t d = Distance(typed, k);
    if (d < best_distance && d * 2 < std::max<size_t>(k.size(), 2)) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

// The long options of the command `sub` (--json, --cut, ...).
std::vector<std::string> LongOptions(const CLI::App* sub) {
  std::vector<std::string> out;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& name : o->get_lnames()) out.push_back("--" + name);
  }
  return out;
}

// The commands that read Apache Ignite's files as well as walcut's.
bool ReadsIgnite(const std::string& command) { return command != "simulate" && command != "completion"; }

}  // namespace

int RunWalcut(const std::vector<std::string>& args, Output& output, Interrupt* interrupt) {
  SetLocalTimes(false);  // until a command's --local says otherwise
  CommandContext ctx;
  ctx.output = &output;
  ctx.interrupt = interrupt;
  CLI::App app{
      "walcut: write-ahead log toolkit for partitioned, replicated, transactional "
      "key-value stores"};
  app.name("walcut");
  app.set_version_flag("--version", std::string("walcut ") + kVersion);
  app.require_subcommand(1);
  RegisterSimulate(app, ctx);
  RegisterDump(app, ctx);
  RegisterCuts(app, ctx);
  RegisterInfo(app, ctx);
  RegisterCheck(app, ctx);
  RegisterGaps(app, ctx);
  RegisterPrune(app, ctx);
  RegisterRestore(app, ctx);
  RegisterVerify(app, ctx);
  RegisterTxs(app, ctx);
  RegisterDiff(app, ctx);
  RegisterData(app, ctx);
  RegisterCompletion(app, ctx);
  for (CLI::App* sub : app.get_subcommands({})) {
    const std::string name = sub->get_name();
    sub->footer("See walcut-" + name + "(1)" +
                (ReadsIgnite(name) ? "; for Apache Ignite's WAL, snapshots and page files, walcut-ignite(7)." : "."));
  }

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
      std::vector<std::string> commands;
      for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
      if (const std::string near = Closest(given[0], commands); !near.empty()) {
        output.Hint("did you mean \"walcut {}\"? The commands are {}, and help", near, names);
      } else {
        output.Hint("the commands are {}, and help", names);
      }
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
    // A mistyped option: the closest of the command's own.
    std::string near;
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    if (!chosen.empty()) {
      for (const auto& word : given) {
        if (word.size() > 2 && word.rfind("--", 0) == 0 && chosen[0]->get_option_no_throw(word) == nullptr) {
          near = Closest(word.substr(0, word.find('=')), LongOptions(chosen[0]));
          if (!near.empty()) break;
        }
      }
    }
    if (!near.empty()) {
      output.Hint("did you mean {}? \"walcut {} --help\" lists its options", near, chosen[0]->get_name());
    } else {
      output.Hint("run \"walcut --help\" or \"walcut COMMAND --help\"");
    }
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
