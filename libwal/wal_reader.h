// Reading a node's WAL: the segments of a directory as one ordered, verified stream.
//
// Every problem is reported to a Reporter with its address, then reading goes on where
// it safely can (LevelDB's reader does the same, without addresses). A record cut short
// at the end of the last segment is a torn tail: reported, not an error. Everything else
// that does not decode is corruption, or one of the segment-sequence problems below.
//
// Each segment is read in the format its header names (segment_format.h): walcut's own
// or Apache Ignite's, through that format's SegmentCodec; the records come out in the
// same structs either way, each with the format it was read in.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libwal/ids.h"
#include "libwal/record.h"
#include "libwal/segment_codec.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace wal {

enum class IssueKind {
  kTornTail,          // not an error: the last segment ends inside a record
  kCorruption,        // bytes that do not verify or decode
  kMissingSegment,    // a hole in the sequence of segment indexes
  kDuplicateSegment,  // two files for one index
  kForeignSegment,    // header's index or node id does not match its place
  kBadLz4,            // a .wal.lz4 file whose LZ4 frame is damaged
  kBadZip,            // a .wal.zip file whose zip structure or deflate data is damaged
  kIoError,           // a file that cannot be read
  kRedundantCopy,     // not an error: a segment stored twice (.wal and .wal.lz4) with equal bytes
  kNotWal,            // a file whose header is neither walcut's nor Ignite's (unknown magic)
  kUnsupported,       // a segment of a format version this reader does not read
  kStaleBytes,        // not an error: bytes after the end of an Ignite work file's data
};
const char* IssueKindName(IssueKind kind);

struct Issue {
  IssueKind kind = IssueKind::kCorruption;
  std::string file;
  uint64_t segment = 0;
  uint64_t offset = 0;        // in the segment's uncompressed bytes (a .wal.zip: its entry's)
  uint64_t record_index = 0;  // position of the record in its segment; 0 is the header
  bool has_checksums = false;
  uint64_t expected_checksum = 0;  // stored in the file
  uint64_t actual_checksum = 0;    // computed over the bytes
  uint64_t bytes_skipped = 0;      // bytes passed over before reading resumed
  uint8_t checksum_bytes = 8;      // 4 for Ignite's CRC-32
  bool in_zip_entry = false;       // `offset` is in a .wal.zip's decompressed entry
  std::string message;

  bool IsError() const {
    return kind != IssueKind::kTornTail && kind != IssueKind::kRedundantCopy && kind != IssueKind::kStaleBytes;
  }
  // One line: "\"<file>\": <kind> at [entry ]offset N (record I): message[, expected
  // checksum 0x..., actual 0x...][, skipped N bytes]".
  std::string ToString() const;
};

struct Record {
  // Where the record was written: its address in walcut's own WALs; in Ignite's, the
  // pointer in its frame (a compacted segment's records keep their original pointers).
  Pointer ptr;
  uint64_t file_offset = 0;  // where it lies in the segment's (decompressed) bytes
  SegmentFormat format = SegmentFormat::kWalcut;
  uint8_t type = 0;
  uint32_t size = 0;  // whole frame
  uint64_t record_index = 0;
  std::string_view payload;  // valid until the next call to Next()
  AnyRecord decoded;         // meaningful when Decodes(type) of its format and decoding is on
  TxView tx;                 // with ReaderOptions::light, for TX_RECORDs instead of decoded
  DataView data;             // with ReaderOptions::light, for DATA_RECORD_V2s instead of decoded
};

struct ReaderOptions {
  bool verify_checksums = true;
  bool decode = true;
  // After corruption inside a segment, scan forward for the next frame that verifies
  // at its own address and go on from there; without it, reading stops.
  bool resync = true;
  // Records before `from` are read (and verified) but not returned.
  Pointer from{};
  // Load (map, or decompress) the next segment on a second thread while this one is read.
  bool prefetch = true;
  // `from` is known to be a record boundary (a pointer this reader returned as end()):
  // reading starts there directly instead of at the segment's beginning.
  bool from_is_boundary = false;
  // `from` should be a record's pointer, given by something other than this reader (the
  // full snapshot's record, from an Ignite snapshot's metadata): reading starts there when
  // a frame that verifies and carries that very pointer lies there (never in a compacted
  // segment, whose records keep their raw offsets), else at the segment's beginning,
  // returning nothing before `from`; either way, damage in that segment before the first
  // record from `from` on is not reported (it would not be read at all the first way).
  // Ignite's segments only.
  bool from_is_record = false;
  // Give back the pages of a mapped segment once read past (every 4 MiB: each release
  // flushes the TLBs of every core the process runs on), and page it in
  // as read: resident memory stays small when many WALs are read at once. A record's
  // views are then valid only until the next Next(), as always.
  bool release_consumed = false;
  // With decode: TX_RECORDs and DATA_RECORD_V2s are only viewed (Record::tx, ::data),
  // their payloads checked as strictly; the other types are decoded as usual.
  bool light = false;
  // The files are one part of a node's WAL read in parts side by side (dump --stats):
  // `more_follow`, segments follow the last one given (it is not the WAL's last);
  // `after_index`, the last segment index of the part before, for the sequence check
  // of the first file given. Read in order, the parts report what one reader of the
  // whole reports, provided every part's headers name the same node (node_id()).
  bool more_follow = false;
  std::optional<uint64_t> after_index;
  // The node every segment header is held to from the first (a part after the first:
  // the node of the WAL's first header), as if that header had been read.
  std::optional<Uuid> node_id;
  // Report an older segment's bytes after the end of an Ignite segment's data (kStaleBytes,
  // not an error: how Ignite leaves every work file it reuses). They are found by reading
  // the rest of the segment, which is otherwise read only where a record of the segment
  // could still follow (never after a SWITCH_SEGMENT_RECORD, and not past the zeros after
  // an end of data).
  bool note_stale_bytes = false;
};

// Segments that every WalReader of the process has finished with (read, or failed to
// load): what a command's progress display counts. Updated once per segment.
uint64_t SegmentsDone();

class WalReader {
 public:
  using Reporter = std::function<void(const Issue&)>;

  // All segments of a `wal/` directory in index order.
  static Result<std::unique_ptr<WalReader>> OpenDirectory(const WalLocation& wal_dir, ReaderOptions options,
                                                          Reporter reporter);
  // The given segment files in order; the last one is the last segment.
  static std::unique_ptr<WalReader> OpenFiles(std::vector<SegmentFile> files, ReaderOptions options, Reporter reporter);

  // The next record, or false at the end of the stream.
  bool Next(const Record** out);

  bool torn_tail() const { return torn_tail_; }
  // The pointer just past the last sound record read so far.
  Pointer end() const { return end_; }
  // The node of the first segment header read whole and sound (walcut's own format; an
  // Ignite header names none): every later header is held to it.
  std::optional<Uuid> node_id() const { return node_id_; }
  uint16_t node_order() const { return node_order_; }
  const std::string& current_file() const;
  uint64_t segments_read() const { return segments_read_; }

 private:
  WalReader(std::vector<SegmentFile> files, ReaderOptions options, Reporter reporter);

  void Report(const Issue& issue);
  Issue MakeIssue(IssueKind kind, uint64_t offset, std::string message) const;
  bool LoadNextSegment();
  void EndSegment();
  bool IsLastSegment() const { return file_idx_ + 1 == files_.size() && !options_.more_follow; }
  // Returns true if `record_` holds a record to hand out.
  bool Step();
  // At a segment's first byte: chooses the codec by the header's magic; for Ignite,
  // reads the header into record_. False when the segment is skipped.
  bool StartSegment(bool* emitted);
  // Resuming at options_.from: checks the header, then jumps.
  bool ResumeInSegment();
  // Fills and parses the frame at pos_.
  void SetCodec(const SegmentCodec& codec);
  FrameStatus NextFrame(FrameView* fv);
  // At the end of the bytes, or past a SWITCH: what that means in this format.
  void EndOfBytes();
  void AfterSwitch();
  // A header frame that does not verify (walcut): reported; false when handled.
  bool BadHeaderFrame(FrameStatus fs, const FrameView& fv);
  // Hands out a sound frame as record_; false when it is not handed out.
  bool Emit(const FrameView& fv);
  // A frame that is not sound: cut short by the segment's end (a torn tail in the last
  // segment, damage in another), the same in every format; otherwise the format's rule of
  // where its data ends (FormatRules::data_end: TornWriteBadFrame, EndMarkBadFrame).
  void HandleBadFrame(FrameStatus fs, const FrameView& fv);
  void TornWriteBadFrame(FrameStatus fs, const FrameView& fv);
  void EndMarkBadFrame(FrameStatus fs, const FrameView& fv);
  // The next offset after pos_ where a frame verifies at its own address, or the end of
  // the segment; with `found`, whether one does.
  uint64_t Resync(Issue* issue, bool* found = nullptr);
  // Reports a damaged LZ4 frame met while streaming, and ends the segment; false when
  // there is none.
  bool StreamDamaged();
  // Gives back the pages before `offset` (always for a stream, with release_consumed
  // for a mapped file), every 4 MiB.
  void ReleaseBehind(uint64_t offset);
  bool CheckHeader();

  std::vector<SegmentFile> files_;
  ReaderOptions options_;
  // The current segment's codec, and what the hot path asks of it, kept at hand.
  const SegmentCodec* codec_ = &CodecFor(SegmentFormat::kWalcut);
  SegmentFormat format_ = SegmentFormat::kWalcut;
  bool ignite_ = false;
  FormatRules::DataEnd data_end_ = FormatRules::DataEnd::kTornWrite;
  // codec_->Decodes(type) by type, set with the codec (per segment): the types it only
  // names (Ignite's page records, most of a WAL) are handed out undecoded without a call.
  std::array<bool, 256> decodes_{};
  size_t header_size_ = 0;
  Reporter reporter_;

  size_t file_idx_ = 0;
  bool loaded_ = false;
  SegmentBytes bytes_;
  std::future<Result<SegmentBytes>> next_;  // the load of files_[file_idx_ + 1], if started
  // A segment read to its end: unmapped on the second thread, when the next load starts
  // there (an unmap costs as much as a tenth of reading the segment).
  SegmentBytes retired_;
  bool next_started_ = false;
  uint64_t pos_ = 0;
  uint64_t released_ = 0;  // DropBefore() done up to here (release_consumed)
  uint64_t record_index_ = 0;
  bool saw_switch_ = false;

  Record record_;
  std::optional<Uuid> node_id_;
  uint16_t node_order_ = 0;
  Pointer end_{};
  bool torn_tail_ = false;
  bool stopped_ = false;
  bool reached_from_ = false;  // a record at or after options_.from was returned
  uint64_t segments_read_ = 0;
};

}  // namespace wal
