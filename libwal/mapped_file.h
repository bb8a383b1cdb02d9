// A file's bytes in memory, read-only: mapped when it can be, read whole otherwise.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

class MappedFile {
 public:
  // kNotFound when `path` does not exist, kIoError when it cannot be opened or read or is
  // not a regular file; the message names the path.
  static Result<MappedFile> Open(const std::string& path);
  // Bytes already in memory, as if read from `path` (tests, fuzzing).
  static MappedFile FromString(std::string path, std::string bytes);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return map_ != nullptr ? std::string_view(map_, size_) : std::string_view(read_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const char* map_ = nullptr;
  size_t size_ = 0;
  std::string read_;  // when the file could not be mapped
};

}  // namespace wal
