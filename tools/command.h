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

struct Interrupt;

struct CommandContext {
  Output* output = nullptr;
  Interrupt* interrupt = nullptr;  // SIGINT/SIGTERM (app.h); null in tests
  std::function<int()> run;        // filled by the chosen subcommand

  // For a command that stops cleanly on a signal: declares it so, and gives the flag
  // it polls (null when there is no interrupt to poll).
  const std::atomic<bool>* Cancellable() const;
};

struct CommonFlags {
  bool json = false;
  bool quiet = false;
};

// --json and -q/--quiet, registered the same way on every subcommand.
void AddCommonFlags(CLI::App* sub, CommonFlags* flags);
// --local: wall-clock times in the local time zone (record_format.h, SetLocalTimes).
void AddLocalFlag(CLI::App* sub);

// A byte count with an optional K, M or G suffix (powers of 1024).
bool ParseSize(const std::string& text, uint64_t* out);

// Numbers on the command line: a whole number is decimal digits only (no sign, no
// exponent, no overflow) within [min, max]; a real is a finite decimal within
// [min, max] (above min when `above_min`). Anything else is a usage error naming the
// flag, the value and the range. The variable is set only when the option is given.
bool ParseWhole(std::string_view text, uint64_t min, uint64_t max, uint64_t* out);
template <typename T>
CLI::Option* AddWhole(CLI::App* sub, const std::string& name, T* var, uint64_t min, uint64_t max,
                      const std::string& help) {
  return sub
      ->add_option_function<std::string>(
          name,
          [name, var, min, max](const std::string& text) {
            uint64_t v = 0;
            if (!ParseWhole(text, min, max, &v)) {
              throw CLI::ValidationError(name,
                                         fmt::format("\"{}\" is not a whole number from {} to {}", text, min, max));
            }
            *var = static_cast<T>(v);
          },
          help)
      ->type_name("N");
}
CLI::Option* AddReal(CLI::App* sub, const std::string& name, double* var, double min, double max,
                     const std::string& help, bool above_min = false);

void RegisterDump(CLI::App& app, CommandContext& ctx);
void RegisterSimulate(CLI::App& app, CommandContext& ctx);
void RegisterData(CLI::App& app, CommandContext& ctx);
void RegisterCuts(CLI::App& app, CommandContext& ctx);
void RegisterCheck(CLI::App& app, CommandContext& ctx);
void RegisterGaps(CLI::App& app, CommandContext& ctx);
void RegisterPrune(CLI::App& app, CommandContext& ctx);
void RegisterDiff(CLI::App& app, CommandContext& ctx);
void RegisterRestore(CLI::App& app, CommandContext& ctx);
void RegisterVerify(CLI::App& app, CommandContext& ctx);
void RegisterCompletion(CLI::App& app, CommandContext& ctx);
void RegisterTxs(CLI::App& app, CommandContext& ctx);
void RegisterInfo(CLI::App& app, CommandContext& ctx);

}  // namespace tools
