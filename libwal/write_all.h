// The one place bytes go to a file descriptor (wal_writer.cc), shared by the segment
// writer and file_io.cc.
#pragma once

#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

// Writes all of `bytes` to `fd` (named `path` in messages), retrying short writes.
Status WriteAll(int fd, const std::string& path, std::string_view bytes);

}  // namespace wal
