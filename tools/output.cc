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

}  // namespace tools
