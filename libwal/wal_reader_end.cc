// Where a segment's data ends, and what a frame that is not sound means there: one
// rule per format (walcut's, Ignite's), and the resync both use after damage.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"
#include "libwal/segment_format.h"
#include "libwal/wal_reader.h"

namespace wal {
namespace {

// The first offset from `at` whose byte is not zero, or data.size().
uint64_t NonZeroFrom(std::string_view data, uint64_t at) {
  const char* p = data.data();
  const uint64_t end = data.size();
  while (at < end && (at & 7) != 0) {
    if (p[at] != 0) return at;
    ++at;
  }
  for (; at + 8 <= end; at += 8) {
    uint64_t w;
    std::memcpy(&w, p + at, 8);
    if (w != 0) break;
  }
  while (at < end && p[at] == 0) ++at;
  return at;
}

}  // namespace

bool WalReader::StreamDamaged() {
  if (bytes_.damage().empty()) return false;
  // A .wal.lz4 whose frame is damaged from here on: what was read before it verified
  // record by record; nothing after it can be read.
  Report(MakeIssue(files_[file_idx_].zip ? IssueKind::kBadZip : IssueKind::kBadLz4, pos_, bytes_.damage()));
  EndSegment();
  return true;
}
void WalReader::ReleaseBehind(uint64_t offset) {
  if ((options_.release_consumed || bytes_.streaming()) && offset >= released_ + (4u << 20)) {
    bytes_.DropBefore(offset);  // the record returned last is dead by now
    released_ = offset;
  }
}

void WalReader::HandleBadFrame(FrameStatus fs, const FrameView& fv) {
  if (StreamDamaged()) return;
  if (fs == FrameStatus::kShortHeader || fs == FrameStatus::kShortFrame) {
    const uint64_t rest = bytes_.bytes().size() - pos_;
    if (IsLastSegment()) {
      Report(
          MakeIssue(IssueKind::kTornTail, pos_, fmt::format("last record cut short: {} of its bytes present", rest)));
    } else {
      Report(MakeIssue(IssueKind::kCorruption, pos_,
                       fmt::format("record cut short at the end of a segment that is not the last ({} bytes)", rest)));
    }
    EndSegment();
    return;
  }
  switch (data_end_) {
    case FormatRules::DataEnd::kTornWrite: TornWriteBadFrame(fs, fv); break;
    case FormatRules::DataEnd::kEndMark: EndMarkBadFrame(fs, fv); break;
  }
}

// DataEnd::kTornWrite (walcut's format): the data ends at the end of the last segment's
// sound frames, where what follows is a torn write (zeros after a frame cut short, a
// checksum never written); any other bad frame is damage, reported, and a reading that
// resyncs goes on at the next frame that verifies.
void WalReader::TornWriteBadFrame(FrameStatus status, const FrameView& fv) {
  const uint64_t stored = fv.stored_checksum, actual = fv.actual_checksum;
  std::string_view data = bytes_.bytes();
  std::string_view rest = data.substr(pos_);
  const bool last = IsLastSegment();
  // A crash during a write leaves the record being written cut short, the rest of its
  // page zero: the file ends at a page (4 KiB) boundary, and the zeros that run to it
  // begin inside this frame. That is the end of the WAL, as PostgreSQL reads it, not
  // damage: a torn tail.
  if (last) {
    const size_t extent = status == FrameStatus::kBadLength || rest.size() < kFrameHeaderSize
                              ? kFrameHeaderSize
                              : kFrameOverhead + DecodeFixed32(rest.data());
    const size_t region_end = std::min<size_t>(pos_ + extent, data.size());
    size_t zeros_from = region_end;
    while (zeros_from > pos_ && data[zeros_from - 1] == 0) --zeros_from;
    if (zeros_from > pos_ && zeros_from - pos_ < extent && bytes_.AllZeroFrom(region_end)) {
      data = bytes_.bytes();
      if (data.size() % 4096 == 0 && zeros_from < data.size()) {
        Report(MakeIssue(IssueKind::kTornTail, pos_,
                         fmt::format("last record cut short by a crash: {} of its bytes written, then zeros to the "
                                     "end of the page",
                                     zeros_from - pos_)));
        EndSegment();
        return;
      }
    }
  }
  // A crash can leave the end of the last segment unwritten (zeros past the last full
  // record, or a final frame whose closing bytes never reached the disk).
  if (last && pos_ != 0 && bytes_.AllZeroFrom(pos_)) {
    Report(MakeIssue(IssueKind::kTornTail, pos_,
                     fmt::format("last {} bytes of the segment are zero (unwritten)", bytes_.bytes().size() - pos_)));
    EndSegment();
    return;
  }
  data = bytes_.bytes();
  rest = data.substr(pos_);
  if (last && status == FrameStatus::kBadChecksum && stored == 0) {
    const uint64_t frame_end = pos_ + kFrameOverhead + DecodeFixed32(rest.data());
    if (!bytes_.Fill(frame_end + 1) && bytes_.bytes().size() == frame_end) {
      Report(MakeIssue(IssueKind::kTornTail, pos_, "last record's checksum was never written (zeros)"));
      EndSegment();
      return;
    }
  }
  Issue issue = MakeIssue(
      IssueKind::kCorruption, pos_,
      status == FrameStatus::kBadLength
          ? std::string("bad record length")
          : fmt::format("checksum mismatch in {} record", wal::RecordTypeName(static_cast<uint8_t>(rest[8]))));
  if (status == FrameStatus::kBadChecksum) {
    issue.has_checksums = true;
    issue.expected_checksum = stored;
    issue.actual_checksum = actual;
  }
  if (!options_.resync) {
    Report(issue);
    stopped_ = true;
    return;
  }
  pos_ = Resync(&issue);
  Report(issue);
  if (!StreamDamaged()) ++record_index_;
}

// DataEnd::kEndMark (Ignite's, AbstractWalRecordsIterator): the data ends at a type byte
// 0, or at a frame whose pointer names another segment (a reused work file's older
// contents), or at the end of the file; a frame cut short by the end of the last segment is
// a torn tail, and so is a CRC mismatch on its last record. A frame that fails with sound
// frames of this segment after it is damage: reported, and reading goes on at the next one.
void WalReader::EndMarkBadFrame(FrameStatus fs, const FrameView& fv) {
  const bool last = IsLastSegment();
  const uint64_t size = bytes_.bytes().size();
  const bool end_mark = fs == FrameStatus::kEndMark || fs == FrameStatus::kForeignPointer;
  std::string what;
  if (fs == FrameStatus::kEndMark) {
    what = "end-of-data mark (type byte 0)";
  } else if (fs == FrameStatus::kForeignPointer) {
    what = fmt::format("a record of segment {} at offset {}", fv.ptr.segment, fv.ptr.offset);
  } else if (fs == FrameStatus::kBadLength) {
    what = "bad record length";
  } else {
    what = fmt::format("CRC mismatch in {} record", RecordTypeName(fv.type, format_));
  }
  Issue issue = MakeIssue(IssueKind::kCorruption, pos_, what);
  if (fs == FrameStatus::kBadChecksum) {
    issue.has_checksums = true;
    issue.checksum_bytes = 4;
    issue.expected_checksum = fv.stored_checksum;
    issue.actual_checksum = fv.actual_checksum;
  }
  const uint64_t at = pos_;
  bool found = false;
  // After an end of data, zeros to the end hold no record: no need to look for one.
  const bool zeros_after = end_mark && options_.resync && bytes_.AllZeroFrom(at);
  const uint64_t next = options_.resync && !zeros_after ? Resync(&issue, &found) : size;
  if (found) {
    // Sound records of this segment follow: what stopped us is damage.
    if (end_mark) issue.message += ", but records of this segment follow";
    pos_ = next;
    Report(issue);
    if (!StreamDamaged()) ++record_index_;
    return;
  }
  if (!options_.resync && !(end_mark && last)) {
    Report(issue);
    stopped_ = true;
    return;
  }
  if (end_mark && last) {
    // The end of the data. Bytes after it in a work file are an older segment's.
    // A .wal.zip is read to its end all the same: its entry is checked there.
    const bool read_rest = !zeros_after && (options_.note_stale_bytes || files_[file_idx_].zip);
    if (read_rest && !bytes_.AllZeroFrom(at) && options_.note_stale_bytes) {
      Report(MakeIssue(IssueKind::kStaleBytes, at,
                       fmt::format("end of data at {}; the {} bytes after it are an older segment's (a reused work "
                                   "file)",
                                   what, bytes_.bytes().size() - at)));
    }
  } else if (last && fs == FrameStatus::kBadChecksum) {
    Issue torn = MakeIssue(IssueKind::kTornTail, at,
                           "last record's CRC does not match: a write cut short (Ignite reads this as the end)");
    Report(torn);
  } else {
    if (end_mark)
      issue.message = fmt::format(
          "segment data ends at {} without a SWITCH_SEGMENT_RECORD, but the "
          "segment is not the last",
          what);
    issue.bytes_skipped = 0;
    Report(issue);
  }
  EndSegment();
}

// The next offset after pos_ whose frame verifies at that very address, or the end of
// the segment. Candidates whose header is sound are checked; a budget on those bytes
// (four times the segment's bytes, and a megabyte) keeps a crafted segment (many
// plausible lengths) from turning the scan quadratic. What lies behind the scan is
// given back as it goes, so a stream never holds more than a frame.
uint64_t WalReader::Resync(Issue* issue, bool* found) {
  const uint64_t segment = files_[file_idx_].index;
  if (found != nullptr) *found = false;
  uint64_t spent = 0;
  uint64_t next = pos_ + 1;
  const bool skip_zeros = codec_->ZeroBeginsNoFrame();
  for (; bytes_.Fill(next + header_size_); ++next) {
    ReleaseBehind(next);
    std::string_view data = bytes_.bytes();
    if (skip_zeros && data[next] == 0) {  // a run of zeros (an unwritten tail) passed at once
      next = NonZeroFrom(data, next) - 1;
      continue;
    }
    const uint64_t extent = codec_->FrameExtent(data.data() + next, data.size() - next);
    if (extent <= 1) continue;                  // no frame header here (or a bare SWITCH byte)
    if (!bytes_.Fill(next + extent)) continue;  // it would run past the end
    if (spent + extent > 4 * uint64_t{bytes_.bytes().size()} + (1u << 20)) {
      bytes_.AllZeroFrom(bytes_.bytes().size());  // to the end, holding nothing
      next = bytes_.bytes().size();
      issue->message += "; resync gave up on the rest of the segment";
      break;
    }
    spent += extent;
    data = bytes_.bytes();
    FrameView probe;
    if (codec_->Parse(data.data() + next, data.size() - next, Pointer{segment, static_cast<uint32_t>(next)}, true,
                      &probe) == FrameStatus::kOk) {
      issue->bytes_skipped = next - pos_;
      if (found != nullptr) *found = true;
      return next;
    }
  }
  next = std::max<uint64_t>(next, bytes_.bytes().size());
  issue->bytes_skipped = next - pos_;
  return next;
}

}  // namespace wal
