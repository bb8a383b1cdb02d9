// The crash-test hook of WALCUT_FAULT_WRITE_BYTES (walcut(1), ENVIRONMENT): once N bytes
// have been written to files, the write that would pass N writes what fits and the
// process ends at once with status 75, as a crash would (no flush, no cleanup).
#pragma once

#include <cstddef>
#include <cstdint>

#include "libwal/write_all.h"

namespace tools {

inline constexpr int kCrashExitStatus = 75;

class CrashAfterBytes : public wal::WriteHook {
 public:
  explicit CrashAfterBytes(uint64_t budget) : budget_(budget) {}
  size_t Allow(size_t size) override;
  [[noreturn]] void Fault() override;

 private:
  uint64_t budget_;
};

// Installs a CrashAfterBytes when WALCUT_FAULT_WRITE_BYTES holds a number (0 or more);
// a value that is not one is ignored.
void InstallCrashHookFromEnvironment();

}  // namespace tools
