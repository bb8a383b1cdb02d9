// Segment files on disk: their names, listing a WAL directory, and loading one
// segment's bytes (mapped when plain, decompressed when .wal.lz4).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/status.h"

namespace wal {

// "%016u.wal" or "%016u.wal.lz4".
std::string SegmentFileName(uint64_t index, bool lz4);
bool ParseSegmentFileName(std::string_view name, uint64_t* index, bool* lz4);

struct SegmentFile {
  uint64_t index = 0;
  std::string path;
  bool compressed = false;
  // When set, the file's bytes as they would be read from `path` (tests and fuzzing
  // read segments built in memory through the same code).
  std::shared_ptr<const std::string> memory;
};

// Every file of `wal_dir` named like a segment, sorted by index (a plain and a
// compressed file of one index both appear, plain first). Other names are ignored.
Result<std::vector<SegmentFile>> ListSegments(const std::string& wal_dir);

// The uncompressed bytes of one segment. Plain files are mapped read-only; .wal.lz4
// files are decompressed into memory, growing only as output is actually produced and
// never past kMaxSegmentSize.
class SegmentBytes {
 public:
  SegmentBytes() = default;
  SegmentBytes(SegmentBytes&& other) noexcept;
  SegmentBytes& operator=(SegmentBytes&& other) noexcept;
  SegmentBytes(const SegmentBytes&) = delete;
  SegmentBytes& operator=(const SegmentBytes&) = delete;
  ~SegmentBytes();

  // kIoError when the file cannot be read; kCorruption (with the compressed byte
  // offset) when an LZ4 frame is damaged.
  // `lazy`: a mapped file is paged in as it is read, not all at once.
  static Result<SegmentBytes> Load(const SegmentFile& file, bool lazy = false);
  static SegmentBytes FromString(std::string bytes);

  std::string_view bytes() const { return {data_, size_}; }
  // The bytes before `offset` will not be looked at again: a mapped file gives their
  // pages back (they are read again from the file if they are). Views into them die.
  void DropBefore(size_t offset);

 private:
  void Release();

  const char* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  size_t dropped_ = 0;
  std::string owned_;
};

}  // namespace wal
