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

// The crash-test hook of WALCUT_FAULT_REMOVE_FILES (walcut(1), ENVIRONMENT): `prune
// --apply` ends at once with status 75 once it has removed or moved N files. A negative
// budget (the default) is none.
void SetRemovalBudget(int64_t files);
// Called before each file is removed or moved: ends the process when N are done.
void BeforeRemoval();

// Installs a CrashAfterBytes when WALCUT_FAULT_WRITE_BYTES holds a number (0 or more),
// and the removal budget of WALCUT_FAULT_REMOVE_FILES; a value that is not a number is
// ignored.
void InstallCrashHookFromEnvironment();

}  // namespace tools
