#include "tools/crash_hook.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace tools {

size_t CrashAfterBytes::Allow(size_t size) {
  const size_t allowed = size <= budget_ ? size : static_cast<size_t>(budget_);
  budget_ -= allowed;
  return allowed;
}

void CrashAfterBytes::Fault() { ::_exit(kCrashExitStatus); }

void InstallCrashHookFromEnvironment() {
  const char* v = std::getenv("WALCUT_FAULT_WRITE_BYTES");
  if (v == nullptr) return;
  uint64_t budget = 0;
  const char* end = v + std::strlen(v);
  auto [p, ec] = std::from_chars(v, end, budget);
  if (ec != std::errc() || p != end || p == v) return;
  static CrashAfterBytes hook(budget);
  wal::InstallWriteHook(&hook);
}

}  // namespace tools
