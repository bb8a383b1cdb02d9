#include "tools/output.h"

#include <unistd.h>

#include <cerrno>

namespace tools {

void FdSink::Flush() {
  std::string_view rest = buf_;
  while (good_ && !rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      good_ = false;
      break;
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  buf_.clear();
}

}  // namespace tools
