// Segment files on disk: their names, listing a WAL directory, and loading one
// segment's bytes (mapped when plain, decompressed when .wal.lz4 or .wal.zip).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/segment_format.h"
#include "libwal/status.h"

namespace wal {

// "%016u.wal" or "%016u.wal.lz4".
std::string SegmentFileName(uint64_t index, bool lz4);
bool ParseSegmentFileName(std::string_view name, uint64_t* index, bool* lz4);

struct SegmentFile {
  uint64_t index = 0;
  std::string path;
  bool compressed = false;  // .wal.lz4
  bool zip = false;         // .wal.zip (Apache Ignite's compacted segments)
  // The format its header names, when the listing looked (ListSegments does, except
  // for .wal.lz4 files, which only walcut writes).
  SegmentFormat format = SegmentFormat::kWalcut;
  // When set, the file's bytes as they would be read from `path` (tests and fuzzing
  // read segments built in memory through the same code).
  std::shared_ptr<const std::string> memory;
};

// Also accepts "%016u.wal.zip" (setting `zip`).
bool ParseSegmentFileName(std::string_view name, SegmentFile* f);

// Where one node's WAL lies: walcut's wal/ directory, or Ignite's two folders, the
// archive (db/wal/archive/<folder>) and the work folder (db/wal/<folder>), in that
// order. A string converts to a location of one directory.
struct WalLocation {
  WalLocation() = default;
  WalLocation(std::string dir) {
    if (!dir.empty()) dirs.push_back(std::move(dir));
  }                                                                // NOLINT: implicit
  WalLocation(const char* dir) : WalLocation(std::string(dir)) {}  // NOLINT: implicit
  explicit WalLocation(std::vector<std::string> d) : dirs(std::move(d)) {}

  bool empty() const { return dirs.empty(); }
  // The directories joined by " + ", for messages.
  std::string ToString() const;

  std::vector<std::string> dirs;
  // Only the segments from `first` to `last` (inclusive) are listed: the part of a WAL a
  // request needs (an increment's window), read as if the WAL were only that part.
  uint64_t first = 0;
  uint64_t last = UINT64_MAX;
  // When set, reading begins at this record of segment `first` (the full snapshot's
  // record, as an Ignite snapshot's metadata places it), where a frame there verifies as
  // that record (ReaderOptions::from_is_record); nothing before it is read as the WAL's.
  std::optional<Pointer> from_record;
};

// Every file of `wal_dir` named like a segment, sorted by index (a plain and a
// compressed file of one index both appear: plain, then .wal.lz4, then .wal.zip). Other
// names are ignored. A file whose header is Ignite's is placed by the index in its
// header, not by its name (Ignite names work files by index modulo their number); a
// file whose header is all zero, in a directory with Ignite segments, is a work file
// never used yet, and left out. Of a location of several directories, each is listed
// and the lists merged; a raw segment of an index already listed raw from an earlier
// directory is left out (Ignite's work file still holding a segment it has archived:
// the archive's copy is read), and so is a .wal.zip of an index already listed as one
// (an increment's hard link of an archived segment).
Result<std::vector<SegmentFile>> ListSegments(const WalLocation& wal_dir);

// Reads the start of a segment file (decompressing a .wal.zip's first bytes) and says
// its format; for an Ignite segment, sets f->index from its header. False when the file
// cannot be read or its header is none of the formats (f is then unchanged); *all_zero
// tells a header of zeros.
bool PlaceSegmentFile(SegmentFile* f, bool* all_zero = nullptr);

// The uncompressed bytes of one segment. Plain files are mapped read-only; .wal.lz4
// files are decompressed into memory, whole, or (`stream`) only as far as the reader
// has asked, into a region of address space whose pages are given back behind it: a
// segment that decompresses to a gigabyte then takes a few megabytes at a time, and a
// reader's memory is bounded by the largest record it must hold, however many segments
// or nodes are read at once.
class SegmentBytes {
 public:
  SegmentBytes();
  SegmentBytes(SegmentBytes&& other) noexcept;
  SegmentBytes& operator=(SegmentBytes&& other) noexcept;
  SegmentBytes(const SegmentBytes&) = delete;
  SegmentBytes& operator=(const SegmentBytes&) = delete;
  ~SegmentBytes();

  // kIoError when the file cannot be read; kCorruption (with the compressed byte
  // offset) when an LZ4 frame is damaged (found at once only when not streaming).
  // `lazy`: a mapped file is paged in as it is read, not all at once.
  static Result<SegmentBytes> Load(const SegmentFile& file, bool lazy = false, bool stream = false);
  static SegmentBytes FromString(std::string bytes);

  // The bytes available so far: all of them unless streaming. The view's address
  // stays the same as more become available.
  std::string_view bytes() const { return {data_, size_}; }
  // Makes at least `upto` bytes available when the segment has that many; false when
  // it has fewer (then all of them are available, or decompression stopped at damage).
  bool Fill(size_t upto);
  // As Fill, decompressing no more than it must (Fill decompresses ahead in steps of
  // 1 MiB): for a look at the header of a compressed file.
  bool FillHead(size_t upto);
  // Whether every byte of the segment is available (or damage stopped decompression).
  bool complete() const;
  // A damaged LZ4 frame met while streaming: a message naming the compressed offset,
  // empty when there is none.
  const std::string& damage() const;
  // A .wal.zip read whole whose entry differs from its central directory (size or
  // CRC-32): a message, else empty.
  const std::string& entry_mismatch() const;
  // Whether every byte from `from` to the end of the segment is zero. Decompresses to
  // the end if it must, giving back the pages of zeros it passes (they read as zeros
  // again), and stops at the first byte that is not zero.
  bool AllZeroFrom(size_t from);
  // The bytes before `offset` will not be looked at again: their pages are given back
  // (a mapped file's are read again from the file if they are; a stream's are not, so
  // a stream keeps what its decompressor still refers to). Views into them die.
  void DropBefore(size_t offset);
  bool streaming() const { return stream_ != nullptr; }

 private:
  // Load's cases: an LZ4 or zip segment decompressed as it is read; a file mapped (or
  // read, or decompressed whole).
  static Result<SegmentBytes> OpenStream(const SegmentFile& file);
  static Result<SegmentBytes> ReadFile(const SegmentFile& file, bool lazy);
  struct Stream;
  void Release();
  // Steps of at most `step` bytes of output.
  bool Decompress(size_t upto, size_t step);

  const char* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  size_t dropped_ = 0;
  std::string owned_;
  std::unique_ptr<Stream> stream_;
};

}  // namespace wal
