// How subcommands plug into `walcut`: each cmd_<name>.cc registers one subcommand on
// the CLI11 app, parses into its options struct, and leaves behind the call to run.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/output.h"

namespace tools {

struct CommandContext {
  Output* output = nullptr;
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM
  std::function<int()> run;                 // filled by the chosen subcommand
};

struct CommonFlags {
  bool json = false;
  bool quiet = false;
};

// --json and -q/--quiet, registered the same way on every subcommand.
void AddCommonFlags(CLI::App* sub, CommonFlags* flags);

// A byte count with an optional K, M or G suffix (powers of 1024).
bool ParseSize(const std::string& text, uint64_t* out);

void RegisterDump(CLI::App& app, CommandContext& ctx);
void RegisterSimulate(CLI::App& app, CommandContext& ctx);
void RegisterData(CLI::App& app, CommandContext& ctx);
void RegisterCuts(CLI::App& app, CommandContext& ctx);
void RegisterCheck(CLI::App& app, CommandContext& ctx);
void RegisterGaps(CLI::App& app, CommandContext& ctx);
void RegisterRestore(CLI::App& app, CommandContext& ctx);
void RegisterVerify(CLI::App& app, CommandContext& ctx);
void RegisterCompletion(CLI::App& app, CommandContext& ctx);
void RegisterTxs(CLI::App& app, CommandContext& ctx);

}  // namespace tools
