// A .wal.zip as Apache Ignite's WAL compactor writes it: a ZIP file holding one entry,
// "<index>.wal", deflated (or stored), read in place as a stream of its bytes. The
// local header may defer the sizes to a data descriptor, so sizes and CRC come from
// the central directory; a file without one (cut short) is read from its local header
// until the deflate stream ends. Memory: zlib's state and window, whatever the size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

struct ZipEntryInfo {
  std::string name;
  uint16_t method = 0;           // 0 stored, 8 deflated
  uint64_t data_offset = 0;      // of the entry's compressed bytes in the file
  uint64_t compressed_size = 0;  // to the end of the file when !from_directory
  uint64_t size = 0;             // uncompressed, when from_directory
  uint32_t crc = 0;              // CRC-32 of the uncompressed bytes, when from_directory
  bool from_directory = false;   // sizes and CRC known from the central directory
};

// Finds the entry whose name ends in ".wal" (Ignite's one entry). kCorruption with the
// file offset of what is wrong; kNotSupported for ZIP64 or an unknown method.
Result<ZipEntryInfo> FindZipEntry(std::string_view zip);

class ZipEntryStream {
 public:
  // `zip` must stay valid as long as the stream.
  static Result<std::unique_ptr<ZipEntryStream>> Open(std::string_view zip);
  // The entry of the local header at the start of `prefix` (the first bytes of a file),
  // read until its deflate stream or `prefix` ends: a look at a file's first entry without
  // its central directory, which only the end of the file holds.
  static Result<std::unique_ptr<ZipEntryStream>> OpenFirstLocal(std::string_view prefix);
  ~ZipEntryStream();
  ZipEntryStream(const ZipEntryStream&) = delete;
  ZipEntryStream& operator=(const ZipEntryStream&) = delete;

  // Writes up to `max` more bytes of the entry into `out` and returns how many. Sets
  // *done at the end of the entry, or at damage, which *damage then names with its
  // offset in the zip file.
  size_t Read(char* out, size_t max, bool* done, std::string* damage);
  // The whole entry at once into `out` (room for `cap` bytes), by libdeflate, where its
  // central directory gives its size and CRC-32 and nothing has been read yet: true when
  // it inflates to exactly that size and CRC (*n bytes), and the stream is then at its
  // end. False otherwise, with nothing consumed: Read() then goes on as if never called
  // (and locates what is wrong, if anything is).
  bool ReadWhole(char* out, size_t cap, size_t* n);
  const ZipEntryInfo& info() const { return info_; }
  // Compressed bytes consumed so far, as an offset in the zip file.
  uint64_t input_offset() const;
  // Once the entry is read whole: how it differs from its central directory entry (size
  // or CRC-32), or empty. Not damage that stops reading: every record verifies on its own.
  const std::string& mismatch() const { return mismatch_; }

 private:
  ZipEntryStream() = default;
  static Result<std::unique_ptr<ZipEntryStream>> Start(std::string_view zip, ZipEntryInfo info);
  struct Z;

  std::string_view zip_;
  ZipEntryInfo info_;
  std::unique_ptr<Z> z_;
  uint64_t in_pos_ = 0;  // in the entry's compressed bytes (stored: copied so far)
  uint64_t out_ = 0;     // uncompressed bytes handed out
  uint32_t crc_ = 0;     // CRC-32 of them
  std::string mismatch_;
};

}  // namespace wal
