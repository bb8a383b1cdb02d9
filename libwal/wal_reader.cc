#include "libwal/wal_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/frame.h"

namespace wal {

const char* IssueKindName(IssueKind kind) {
  switch (kind) {
    case IssueKind::kTornTail: return "torn tail";
    case IssueKind::kCorruption: return "corruption";
    case IssueKind::kMissingSegment: return "missing segment";
    case IssueKind::kDuplicateSegment: return "duplicate segment";
    case IssueKind::kForeignSegment: return "foreign segment";
    case IssueKind::kBadLz4: return "damaged lz4 frame";
    case IssueKind::kIoError: return "i/o error";
    case IssueKind::kRedundantCopy: return "redundant copy";
  }
  return "unknown";
}

std::string Issue::ToString() const {
  std::string s = fmt::format("\"{}\": {} at offset {} (record {}): {}", file,
                              IssueKindName(kind), offset, record_index, message);
  if (has_checksums) {
    s += fmt::format(", expected checksum 0x{:016x}, actual 0x{:016x}", expected_checksum,
                     actual_checksum);
  }
  if (bytes_skipped != 0) s += fmt::format(", skipped {} bytes", bytes_skipped);
  return s;
}

namespace {

// Whether two files hold the same segment bytes (once decompressed).
bool SameBytes(const SegmentFile& a, const SegmentFile& b) {
  auto x = SegmentBytes::Load(a);
  auto y = SegmentBytes::Load(b);
  return x.ok() && y.ok() && x->bytes() == y->bytes();
}

}  // namespace

Result<std::unique_ptr<WalReader>> WalReader::OpenDirectory(const std::string& wal_dir,
                                                            ReaderOptions options,
                                                            Reporter reporter) {
  auto files = ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  return OpenFiles(std::move(files).value(), options, std::move(reporter));
}

std::unique_ptr<WalReader> WalReader::OpenFiles(std::vector<SegmentFile> files,
                                                ReaderOptions options, Reporter reporter) {
  return std::unique_ptr<WalReader>(
      new WalReader(std::move(files), options, std::move(reporter)));
}

WalReader::WalReader(std::vector<SegmentFile> files, ReaderOptions options, Reporter reporter)
    : files_(std::move(files)), options_(options), reporter_(std::move(reporter)) {
  // Sequence problems are known from the names alone; report them up front, in order.
  for (size_t i = 1; i < files_.size(); ++i) {
    const auto& prev = files_[i - 1];
    const auto& cur = files_[i];
    if (cur.index == prev.index) {
      // A plain segment and its compressed form both present is what a crash between
      // writing the .wal.lz4 and removing the .wal leaves: equal bytes are one segment.
      Issue issue;
      issue.kind = SameBytes(prev, cur) ? IssueKind::kRedundantCopy : IssueKind::kDuplicateSegment;
      issue.file = cur.path;
      issue.segment = cur.index;
      issue.message = issue.kind == IssueKind::kRedundantCopy
                          ? fmt::format("segment {} is also stored as \"{}\" with the same bytes; reading that one",
                                        cur.index, prev.path)
                          : fmt::format("segment {} is also stored as \"{}\", with other bytes; reading that one",
                                        cur.index, prev.path);
      Report(std::move(issue));
    } else if (cur.index != prev.index + 1) {
      Issue issue;
      issue.kind = IssueKind::kMissingSegment;
      issue.file = cur.path;
      issue.segment = cur.index;
      issue.message = cur.index == prev.index + 2
                          ? fmt::format("segment {} is missing", prev.index + 1)
                          : fmt::format("segments {} to {} are missing", prev.index + 1,
                                        cur.index - 1);
      Report(std::move(issue));
    }
  }
  files_.erase(std::unique(files_.begin(), files_.end(),
                           [](const SegmentFile& a, const SegmentFile& b) {
                             return a.index == b.index;
                           }),
               files_.end());
  if (options_.from.segment != 0 || options_.from.offset != 0) {
    files_.erase(std::remove_if(files_.begin(), files_.end(),
                                [&](const SegmentFile& f) {
                                  return f.index < options_.from.segment;
                                }),
                 files_.end());
  }
}

const std::string& WalReader::current_file() const {
  static const std::string kNone;
  return file_idx_ < files_.size() ? files_[file_idx_].path : kNone;
}

void WalReader::Report(Issue issue) {
  if (issue.IsError()) ++errors_;
  if (issue.kind == IssueKind::kTornTail) torn_tail_ = true;
  if (reporter_) reporter_(issue);
}

Issue WalReader::MakeIssue(IssueKind kind, uint64_t offset, std::string message) const {
  Issue issue;
  issue.kind = kind;
  issue.file = current_file();
  issue.segment = file_idx_ < files_.size() ? files_[file_idx_].index : 0;
  issue.offset = offset;
  issue.record_index = record_index_;
  issue.message = std::move(message);
  return issue;
}

bool WalReader::LoadNextSegment() {
  while (file_idx_ < files_.size()) {
    record_index_ = 0;
    const bool lazy = options_.release_consumed;
    Result<SegmentBytes> loaded =
        next_started_ ? next_.get() : SegmentBytes::Load(files_[file_idx_], lazy, /*stream=*/true);
    next_started_ = false;
    if (options_.prefetch && file_idx_ + 1 < files_.size()) {
      next_ = std::async(std::launch::async,
                         [f = files_[file_idx_ + 1], lazy] { return SegmentBytes::Load(f, lazy, /*stream=*/true); });
      next_started_ = true;
    }
    if (!loaded.ok()) {
      IssueKind kind = loaded.status().code() != StatusCode::kCorruption ? IssueKind::kIoError
                       : files_[file_idx_].compressed                     ? IssueKind::kBadLz4
                                                                          : IssueKind::kCorruption;
      Issue issue = MakeIssue(kind, 0, loaded.status().message());
      Report(std::move(issue));
      ++file_idx_;
      continue;
    }
    bytes_ = std::move(loaded).value();
    loaded_ = true;
    pos_ = 0;
    released_ = 0;
    record_index_ = 0;
    saw_switch_ = false;
    ++segments_read_;
    return true;
  }
  return false;
}

void WalReader::EndSegment() {
  loaded_ = false;
  bytes_ = SegmentBytes();
  ++file_idx_;
}

bool WalReader::Next(const Record** out) {
  while (!stopped_) {
    if (!loaded_ && !LoadNextSegment()) return false;
    if (Step()) {
      if (record_.ptr < options_.from) continue;
      *out = &record_;
      return true;
    }
  }
  return false;
}

bool WalReader::CheckHeader() {
  const HeaderRecord& h = record_.decoded.header;
  const SegmentFile& f = files_[file_idx_];
  if (record_.type != static_cast<uint8_t>(RecordType::kHeader)) {
    Report(MakeIssue(IssueKind::kCorruption, 0,
                     fmt::format("segment does not begin with a HEADER_RECORD (type {})",
                                 record_.type)));
    return false;
  }
  if (h.magic != kSegmentMagic) {
    Report(MakeIssue(IssueKind::kCorruption, 0,
                     fmt::format("bad segment magic 0x{:016x}, expected 0x{:016x}", h.magic,
                                 kSegmentMagic)));
    return false;
  }
  if (h.version == 0 || h.version > kFormatVersion) {
    Report(MakeIssue(IssueKind::kCorruption, 0,
                     fmt::format("unsupported format version {} (this reader knows up to {})",
                                 h.version, kFormatVersion)));
    return false;
  }
  if (h.segment != f.index) {
    Report(MakeIssue(IssueKind::kForeignSegment, 0,
                     fmt::format("header says segment {}, file name says {}", h.segment,
                                 f.index)));
    return false;
  }
  if (node_id_ && *node_id_ != h.node_id) {
    Report(MakeIssue(IssueKind::kForeignSegment, 0,
                     fmt::format("segment belongs to node {}, the directory to node {}",
                                 h.node_id.ToString(), node_id_->ToString())));
    return false;
  }
  node_id_ = h.node_id;
  node_order_ = h.node_order;
  return true;
}

bool WalReader::StreamDamaged() {
  if (bytes_.damage().empty()) return false;
  // A .wal.lz4 whose frame is damaged from here on: what was read before it verified
  // record by record; nothing after it can be read.
  Report(MakeIssue(IssueKind::kBadLz4, pos_, bytes_.damage()));
  EndSegment();
  return true;
}

void WalReader::ReleaseBehind(uint64_t offset) {
  if ((options_.release_consumed || bytes_.streaming()) && offset >= released_ + (4u << 20)) {
    bytes_.DropBefore(offset);  // the record returned last is dead by now
    released_ = offset;
  }
}

void WalReader::HandleBadFrame(int frame_status, uint64_t stored, uint64_t actual) {
  auto status = static_cast<FrameStatus>(frame_status);
  if (StreamDamaged()) return;
  std::string_view data = bytes_.bytes();
  std::string_view rest = data.substr(pos_);
  const bool last = IsLastSegment();
  if (status == FrameStatus::kShortHeader || status == FrameStatus::kShortFrame) {
    if (last) {
      Report(MakeIssue(IssueKind::kTornTail, pos_,
                       fmt::format("last record cut short: {} of its bytes present", rest.size())));
    } else {
      Report(MakeIssue(IssueKind::kCorruption, pos_,
                       fmt::format("record cut short at the end of a segment that is not the "
                                   "last ({} bytes)",
                                   rest.size())));
    }
    EndSegment();
    return;
  }
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
  Issue issue = MakeIssue(IssueKind::kCorruption, pos_,
                          status == FrameStatus::kBadLength
                              ? std::string("bad record length")
                              : fmt::format("checksum mismatch in {} record",
                                            RecordTypeName(static_cast<uint8_t>(rest[8]))));
  if (status == FrameStatus::kBadChecksum) {
    issue.has_checksums = true;
    issue.expected_checksum = stored;
    issue.actual_checksum = actual;
  }
  if (!options_.resync) {
    Report(std::move(issue));
    stopped_ = true;
    return;
  }
  pos_ = Resync(&issue);
  Report(std::move(issue));
  if (!StreamDamaged()) ++record_index_;
}

// The next offset after pos_ whose frame verifies at that very address, or the end of
// the segment. Candidates whose length words agree are hashed; a budget on those bytes
// (four times the segment's bytes, and a megabyte) keeps a crafted segment (many
// plausible lengths) from turning the scan quadratic. What lies behind the scan is
// given back as it goes, so a stream never holds more than a frame.
uint64_t WalReader::Resync(Issue* issue) {
  const uint64_t segment = files_[file_idx_].index;
  uint64_t spent = 0;
  uint64_t next = pos_ + 1;
  for (; bytes_.Fill(next + kFrameOverhead); ++next) {
    ReleaseBehind(next);
    std::string_view data = bytes_.bytes();
    const char* p = data.data() + next;
    const uint32_t length = DecodeFixed32(p);
    if (DecodeFixed32(p + 4) != ~length || length > kMaxPayloadSize) continue;
    if (!bytes_.Fill(next + kFrameOverhead + length)) continue;  // it would run past the end
    if (spent + length > 4 * uint64_t{bytes_.bytes().size()} + (1u << 20)) {
      bytes_.AllZeroFrom(bytes_.bytes().size());  // to the end, holding nothing
      next = bytes_.bytes().size();
      issue->message += "; resync gave up on the rest of the segment";
      break;
    }
    spent += length;
    data = bytes_.bytes();
    FrameView probe;
    if (ParseFrame(data.data() + next, data.size() - next, Pointer{segment, static_cast<uint32_t>(next)}, true,
                   &probe) == FrameStatus::kOk) {
      issue->bytes_skipped = next - pos_;
      return next;
    }
  }
  next = std::max<uint64_t>(next, bytes_.bytes().size());
  issue->bytes_skipped = next - pos_;
  return next;
}

bool WalReader::Step() {
  ReleaseBehind(pos_);
  const SegmentFile& f = files_[file_idx_];
  if (pos_ == 0 && options_.from_is_boundary && f.index == options_.from.segment &&
      options_.from.offset != 0 && record_index_ == 0) {
    // Resuming: the header was verified by the run that produced `from`; still check
    // it so a replaced file is noticed.
    bytes_.Fill(kFrameOverhead + kHeaderPayloadSize);
    std::string_view data = bytes_.bytes();
    FrameView hv;
    if (ParseFrame(data.data(), data.size(), Pointer{f.index, 0}, options_.verify_checksums,
                   &hv) == FrameStatus::kOk &&
        hv.type == static_cast<uint8_t>(RecordType::kHeader) &&
        DecodePayload(hv.type, hv.payload, &record_.decoded).ok()) {
      record_.type = hv.type;
      if (!CheckHeader()) {
        EndSegment();
        return false;
      }
      bytes_.Fill(options_.from.offset);
      pos_ = std::min<uint64_t>(options_.from.offset, bytes_.bytes().size());
      record_index_ = 1;
    }
  }
  // The frame at pos_: its header, then, when its length is sound, all of it.
  bytes_.Fill(pos_ + kFrameHeaderSize);
  std::string_view data = bytes_.bytes();
  if (data.size() >= pos_ + kFrameHeaderSize) {
    const uint32_t length = DecodeFixed32(data.data() + pos_);
    if (DecodeFixed32(data.data() + pos_ + 4) == ~length && length <= kMaxPayloadSize) {
      bytes_.Fill(pos_ + kFrameOverhead + length);
      data = bytes_.bytes();
    }
  }
  if (pos_ >= data.size()) {
    if (StreamDamaged()) return false;
    if (data.empty() && IsLastSegment()) {
      Report(MakeIssue(IssueKind::kTornTail, 0, "last segment is empty"));
    } else if (!saw_switch_ && !IsLastSegment()) {
      Report(MakeIssue(IssueKind::kCorruption, pos_,
                       "segment ends without a SWITCH_SEGMENT_RECORD but is not the last"));
    }
    EndSegment();
    return false;
  }
  if (saw_switch_) {
    Report(MakeIssue(IssueKind::kCorruption, pos_,
                     bytes_.complete() ? fmt::format("{} bytes after the SWITCH_SEGMENT_RECORD", data.size() - pos_)
                                       : std::string("bytes after the SWITCH_SEGMENT_RECORD")));
    EndSegment();
    return false;
  }
  const Pointer at{f.index, static_cast<uint32_t>(pos_)};
  FrameView fv;
  FrameStatus fs = ParseFrame(data.data() + pos_, data.size() - pos_, at,
                              options_.verify_checksums, &fv);
  if (fs == FrameStatus::kBadChecksum && record_index_ == 0 &&
      fv.payload.size() == kHeaderPayloadSize) {
    // A header that verifies only at the index it names: a segment file renamed or
    // copied into the wrong place, not damaged bytes.
    const uint64_t claimed = DecodeFixed64(fv.payload.data() + 12);
    FrameView again;
    if (claimed != f.index &&
        ParseFrame(data.data(), data.size(), Pointer{claimed, 0}, true, &again) ==
            FrameStatus::kOk) {
      Report(MakeIssue(IssueKind::kForeignSegment, 0,
                       fmt::format("header says segment {}, file name says {}", claimed, f.index)));
      EndSegment();
      return false;
    }
  }
  if (record_index_ == 0 && (fs == FrameStatus::kBadChecksum || fs == FrameStatus::kBadLength) &&
      !(IsLastSegment() && bytes_.AllZeroFrom(0))) {
    // A header that does not verify gives the segment no identity (whose node, which
    // index): nothing after it can be attributed, so the whole segment is skipped.
    Issue issue = MakeIssue(IssueKind::kCorruption, 0,
                            "the segment header does not verify: the segment's node and index are unknown, so the "
                            "segment is skipped");
    issue.has_checksums = fs == FrameStatus::kBadChecksum;
    issue.expected_checksum = fv.stored_checksum;
    issue.actual_checksum = fv.actual_checksum;
    issue.bytes_skipped = data.size();
    Report(std::move(issue));
    EndSegment();
    return false;
  }
  if (fs != FrameStatus::kOk) {
    HandleBadFrame(static_cast<int>(fs), fv.stored_checksum, fv.actual_checksum);
    return false;
  }
  record_.ptr = at;
  record_.type = fv.type;
  record_.size = fv.size;
  record_.record_index = record_index_;
  record_.payload = fv.payload;
  const bool is_header = fv.type == static_cast<uint8_t>(RecordType::kHeader);
  if (options_.decode || record_index_ == 0 || is_header) {
    // A view refuses exactly what DecodePayload refuses (held by a unit test and the
    // fuzz target), so a refused payload is decoded only for its message.
    Status ds;
    const bool viewed = options_.light && record_index_ != 0 &&
                        (fv.type == static_cast<uint8_t>(RecordType::kTx)
                             ? ViewTx(fv.payload, &record_.tx)
                             : fv.type == static_cast<uint8_t>(RecordType::kData) && ViewData(fv.payload, &record_.data));
    if (viewed) {
      record_.decoded.type = fv.type;
    } else {
      ds = DecodePayload(fv.type, fv.payload, &record_.decoded);
    }
    if (!ds.ok()) {
      Report(MakeIssue(IssueKind::kCorruption, pos_, ds.message()));
      if (record_index_ == 0) {
        EndSegment();
        return false;
      }
      pos_ += fv.size;
      ++record_index_;
      return false;
    }
  } else {
    record_.decoded.type = fv.type;
  }
  if (record_index_ == 0) {
    if (!CheckHeader()) {
      EndSegment();
      return false;
    }
  } else if (is_header) {
    Report(MakeIssue(IssueKind::kCorruption, pos_, "HEADER_RECORD in the middle of a segment"));
    pos_ += fv.size;
    ++record_index_;
    return false;
  }
  pos_ += fv.size;
  ++record_index_;
  end_ = Pointer{f.index, static_cast<uint32_t>(pos_)};
  if (fv.type == static_cast<uint8_t>(RecordType::kSwitchSegment)) {
    saw_switch_ = true;
    end_ = Pointer{f.index + 1, 0};  // a sealed segment: what follows is in the next one
  }
  return true;
}

}  // namespace wal
