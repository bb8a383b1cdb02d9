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

namespace {

int64_t removal_budget = -1;

// The number in environment variable `name`, if it holds one.
bool NumberFrom(const char* name, uint64_t* out) {
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  const char* end = v + std::strlen(v);
  auto [p, ec] = std::from_chars(v, end, *out);
  return ec == std::errc() && p == end && p != v;
}

}  // namespace

void SetRemovalBudget(int64_t files) { removal_budget = files; }

void BeforeRemoval() {
  if (removal_budget < 0) return;
  if (removal_budget == 0) ::_exit(kCrashExitStatus);
  --removal_budget;
}

void InstallCrashHookFromEnvironment() {
  uint64_t budget = 0;
  if (NumberFrom("WALCUT_FAULT_WRITE_BYTES", &budget)) {
    static CrashAfterBytes hook(budget);
    wal::InstallWriteHook(&hook);
  }
  if (NumberFrom("WALCUT_FAULT_REMOVE_FILES", &budget) && budget <= INT64_MAX) {
    SetRemovalBudget(static_cast<int64_t>(budget));
  }
}

}  // namespace tools
