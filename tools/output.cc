#include "tools/output.h"

#include <unistd.h>

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

}  // namespace tools
