// Appending to a node's WAL: buffered, append-only, rolling to a new segment before one
// would pass its size. Earlier bytes are never rewritten.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "libwal/file_io.h"
#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/ids.h"
#include "libwal/status.h"

namespace wal {

struct WriterOptions {
  uint64_t segment_size = kDefaultSegmentSize;
  bool fsync = false;            // fsync on Sync(), on every roll and on Close()
  bool compress_sealed = false;  // turn each sealed segment into .wal.lz4
  size_t buffer_size = 1 << 20;  // bytes gathered before a write(2)
};

class WalWriter {
 public:
  // Starts a new WAL in `wal_dir` (created if missing) at segment `first_segment`.
  // Refuses a directory that already holds segment files.
  static Result<std::unique_ptr<WalWriter>> Create(const std::string& wal_dir, Uuid node_id, uint16_t node_order,
                                                   WriterOptions options, uint64_t first_segment = 0);
  // Continues an existing WAL after its last sound record. A torn tail of the last
  // segment is first saved beside it as `torn-<segment>-<offset>.bin` (fsynced), then cut
  // off; a sealed last segment is followed by a new one. Refuses a WAL whose reading
  // reports any error (corruption, missing segments): appending would bury the damage.
  static Result<std::unique_ptr<WalWriter>> OpenForAppend(const std::string& wal_dir, WriterOptions options);
  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  // Appends one record and returns its pointer. The bytes reach the file on Flush(),
  // Sync(), Close() or when the buffer fills.
  template <typename R>
  Result<Pointer> Append(const R& r) {
    WAL_RETURN_IF_ERROR(status_);
    size_t mark = buf_.size();
    Pointer at = position();
    size_t size = AppendRecord(r, at, &buf_);
    if (NeedsRoll(size)) {
      buf_.resize(mark);
      WAL_RETURN_IF_ERROR(Roll());
      at = position();
      size = AppendRecord(r, at, &buf_);
    }
    return Placed(at, size);
  }

  Status Flush();
  Status Sync();
  // Flushes and closes; the last segment stays unsealed, as a running node leaves it.
  Status Close();
  // Simulates a crash in the middle of writing the last record: flushes, then drops the
  // last `drop_bytes` bytes of the file, and closes without fsync.
  Status CloseTorn(uint32_t drop_bytes);

  Pointer position() const { return Pointer{segment_, static_cast<uint32_t>(offset_ + buf_.size())}; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t records_written() const { return records_written_; }
  const std::string& wal_dir() const { return dir_; }
  Uuid node_id() const { return node_id_; }

 private:
  WalWriter(std::string dir, Uuid node_id, uint16_t node_order, WriterOptions options);

  bool NeedsRoll(size_t frame_size) const;
  Result<Pointer> Placed(Pointer at, size_t size);
  Status OpenSegment(uint64_t index);
  Status Roll();
  Status WriteOut();

  std::string dir_;
  Uuid node_id_;
  uint16_t node_order_;
  WriterOptions options_;
  int fd_ = -1;
  uint64_t segment_ = 0;
  uint64_t offset_ = 0;  // bytes of the current segment already written to the file
  std::string buf_;
  std::string path_;
  uint64_t bytes_written_ = 0;
  uint64_t records_written_ = 0;
  Status status_;
};

// Replaces a sealed segment file `path` (.wal) by `path`.lz4: written to a temporary,
// fsynced, renamed, then the plain file removed.
Status CompressSegmentFile(const std::string& path);

}  // namespace wal
