#include "tools/output.h"

#include <unistd.h>

#include <array>
#include <cerrno>

namespace tools {

void FdSink::Write(std::string_view bytes) {
  if (bytes.size() < limit_) {
    buf_.append(bytes);
    if (buf_.size() >= limit_) Flush();
    return;
  }
  Flush();  // a large piece goes out as it is, not copied first
  WriteAll(bytes);
}

void FdSink::Flush() {
  WriteAll(buf_);
  buf_.clear();
}

void FdSink::WriteAll(std::string_view rest) {
  while (good_ && !rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      good_ = false;
      break;
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
}

std::string FormatBytes(uint64_t n) {
  if (n >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1 << 30));
  if (n >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  if (n >= 1024) return fmt::format("{:.1f} KiB", static_cast<double>(n) / 1024);
  return fmt::format("{} B", n);
}

namespace {

using wal::StatusCode;

struct ExitRow {
  StatusCode code;
  int inputs, refusal, output;  // by Step
};

// Every status code, in StatusCode's order (checked below), by step.
constexpr std::array<ExitRow, 10> kExitCodes{{
    {StatusCode::kOk, kExitOk, kExitOk, kExitOk},
    {StatusCode::kCorruption, kExitUnreadable, kExitProblems, kExitUsage},
    {StatusCode::kTruncated, kExitUnreadable, kExitProblems, kExitUsage},
    {StatusCode::kIoError, kExitUnreadable, kExitUnreadable, kExitUnreadable},
    {StatusCode::kNotFound, kExitUnreadable, kExitProblems, kExitUsage},
    {StatusCode::kInvalidArgument, kExitUsage, kExitProblems, kExitUsage},
    {StatusCode::kNotSupported, kExitUnreadable, kExitProblems, kExitUsage},
    {StatusCode::kAlreadyExists, kExitUsage, kExitProblems, kExitUsage},
    {StatusCode::kCancelled, kExitInterrupted, kExitInterrupted, kExitInterrupted},
    {StatusCode::kInternal, kExitInternal, kExitInternal, kExitInternal},
}};

constexpr bool InStatusOrder() {
  for (size_t i = 0; i < kExitCodes.size(); ++i) {
    if (static_cast<size_t>(kExitCodes[i].code) != i) return false;
  }
  return static_cast<size_t>(StatusCode::kInternal) + 1 == kExitCodes.size();
}
static_assert(InStatusOrder(), "kExitCodes has a row per StatusCode, in its order");

}  // namespace

int ExitCodeOf(const wal::Status& status, Step step) {
  const auto i = static_cast<size_t>(status.code());
  if (i >= kExitCodes.size()) return kExitInternal;
  const ExitRow& row = kExitCodes[i];
  switch (step) {
    case Step::kInputs: return row.inputs;
    case Step::kRefusal: return row.refusal;
    case Step::kOutput: return row.output;
  }
  return kExitInternal;
}

}  // namespace tools
