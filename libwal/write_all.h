// The one place bytes go to a file descriptor, shared by the segment writer and
// file_io.cc, and the one seam where a process may step in: a WriteHook installed by
// the program (or a test) sees every write first, as RocksDB's fault-injection file
// system does. The library installs none and reads no environment.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

class WriteHook {
 public:
  virtual ~WriteHook() = default;
  // Called before `size` bytes go to a file: how many of them may be written, all
  // unless a fault is due.
  virtual size_t Allow(size_t size) = 0;
  // Called once the bytes allowed, fewer than asked, are written: the fault itself
  // (a crash test ends the process here).
  virtual void Fault() = 0;
};

// Installs `hook` for every write of this process that follows (null: none). Returns
// the hook installed before. Not for use while other threads write.
WriteHook* InstallWriteHook(WriteHook* hook);

// Writes all of `bytes` to `fd` (named `path` in messages), retrying short writes.
Status WriteAll(int fd, const std::string& path, std::string_view bytes);

}  // namespace wal
