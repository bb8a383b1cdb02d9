#include "libwal/wal_reader.h"

#include <algorithm>
#include <atomic>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_frame.h"

namespace wal {

namespace {

// Whether two files hold the same segment bytes (once decompressed).
bool SameBytes(const SegmentFile& a, const SegmentFile& b) {
  auto x = SegmentBytes::Load(a);
  auto y = SegmentBytes::Load(b);
  return x.ok() && y.ok() && x->bytes() == y->bytes();
}

}  // namespace

Result<std::unique_ptr<WalReader>> WalReader::OpenDirectory(const WalLocation& wal_dir, ReaderOptions options,
                                                            Reporter reporter) {
  auto files = ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  return OpenFiles(std::move(files).value(), options, std::move(reporter));
}

std::unique_ptr<WalReader> WalReader::OpenFiles(std::vector<SegmentFile> files, ReaderOptions options,
                                                Reporter reporter) {
  return std::unique_ptr<WalReader>(new WalReader(std::move(files), options, std::move(reporter)));
}

WalReader::WalReader(std::vector<SegmentFile> files, ReaderOptions options, Reporter reporter)
    : files_(std::move(files)), options_(options), reporter_(std::move(reporter)), node_id_(options_.node_id) {
  // Sequence problems are known from the names alone; report them up front, in order.
  // Read in parts, the first file follows the part before's last (of another index).
  SegmentFile before;
  if (options_.after_index) before.index = *options_.after_index;
  for (size_t i = options_.after_index ? 0 : 1; i < files_.size(); ++i) {
    const auto& prev = i == 0 ? before : files_[i - 1];
    const auto& cur = files_[i];
    if (i == 0 && cur.index == prev.index) continue;  // parts never split an index
    if (cur.index == prev.index && (cur.zip || prev.zip) && !(cur.zip && prev.zip)) {
      // An Ignite segment kept raw and compacted: the raw file holds every record, the
      // compacted one only the logical ones; the raw one is read (it sorts first).
      continue;
    }
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
      Report(issue);
    } else if (cur.index != prev.index + 1) {
      Issue issue;
      issue.kind = IssueKind::kMissingSegment;
      issue.file = cur.path;
      issue.segment = cur.index;
      issue.message = cur.index == prev.index + 2
                          ? fmt::format("segment {} is missing", prev.index + 1)
                          : fmt::format("segments {} to {} are missing", prev.index + 1, cur.index - 1);
      Report(issue);
    }
  }
  files_.erase(std::unique(files_.begin(), files_.end(),
                           [](const SegmentFile& a, const SegmentFile& b) { return a.index == b.index; }),
               files_.end());
  if (options_.from.segment != 0 || options_.from.offset != 0) {
    files_.erase(std::remove_if(files_.begin(), files_.end(),
                                [&](const SegmentFile& f) { return f.index < options_.from.segment; }),
                 files_.end());
  }
}

const std::string& WalReader::current_file() const {
  static const std::string kNone;
  return file_idx_ < files_.size() ? files_[file_idx_].path : kNone;
}

void WalReader::Report(const Issue& issue) {
  // Reading from a record's pointer, damage inside its segment before the first record
  // from there on is not the reading's: where the pointer verifies it is never read at all
  // (ResumeInSegment), and the other ways (a compacted segment, a pointer that does not
  // verify) must give the same. Damage that ends the reading of the segment is still told,
  // and so is the loss of the record itself (no record from there on is read then).
  if (options_.from_is_record && !reached_from_ && issue.kind == IssueKind::kCorruption &&
      issue.segment == options_.from.segment) {
    return;
  }
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
  issue.in_zip_entry = file_idx_ < files_.size() && files_[file_idx_].zip;
  issue.message = std::move(message);
  return issue;
}

namespace {
std::atomic<uint64_t> segments_done{0};
}  // namespace

uint64_t SegmentsDone() { return segments_done.load(std::memory_order_relaxed); }

bool WalReader::LoadNextSegment() {
  while (file_idx_ < files_.size()) {
    record_index_ = 0;
    const bool lazy = options_.release_consumed;
    Result<SegmentBytes> loaded =
        next_started_ ? next_.get() : SegmentBytes::Load(files_[file_idx_], lazy, /*stream=*/true);
    next_started_ = false;
    if (options_.prefetch && file_idx_ + 1 < files_.size()) {
      next_ =
          std::async(std::launch::async, [f = files_[file_idx_ + 1], lazy, retired = std::move(retired_)]() mutable {
            retired = SegmentBytes();
            auto next = SegmentBytes::Load(f, lazy, /*stream=*/true);
            // One WAL read at a time (not lazy): a .wal.zip is inflated here, whole, beside the
            // reading of this one, not on the reading thread.
            if (next.ok() && !lazy) next->Fill(1);
            return next;
          });
      next_started_ = true;
    }
    retired_ = SegmentBytes();
    if (!loaded.ok()) {
      const StatusCode code = loaded.status().code();
      IssueKind kind = code == StatusCode::kNotSupported ? IssueKind::kUnsupported
                       : code != StatusCode::kCorruption ? IssueKind::kIoError
                       : files_[file_idx_].compressed    ? IssueKind::kBadLz4
                       : files_[file_idx_].zip           ? IssueKind::kBadZip
                                                         : IssueKind::kCorruption;
      Issue issue = MakeIssue(kind, 0, loaded.status().message());
      Report(issue);
      ++file_idx_;
      segments_done.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    bytes_ = std::move(loaded).value();
    loaded_ = true;
    pos_ = 0;
    released_ = 0;
    record_index_ = 0;
    saw_switch_ = false;
    SetCodec(CodecFor(SegmentFormat::kWalcut));
    ++segments_read_;
    return true;
  }
  return false;
}

void WalReader::EndSegment() {
  if (!bytes_.entry_mismatch().empty()) {
    // The bytes of a .wal.zip differ from what its directory says (each record was
    // verified on its own, so the damaged ones were reported where they lie).
    Report(MakeIssue(IssueKind::kBadZip, bytes_.bytes().size(), bytes_.entry_mismatch()));
  }
  loaded_ = false;
  retired_ = std::move(bytes_);
  bytes_ = SegmentBytes();
  ++file_idx_;
  segments_done.fetch_add(1, std::memory_order_relaxed);
}

bool WalReader::Next(const Record** out) {
  while (!stopped_) {
    if (!loaded_ && !LoadNextSegment()) return false;
    if (Step()) {
      if (record_.ptr < options_.from) continue;
      reached_from_ = true;
      *out = &record_;
      return true;
    }
  }
  return false;
}

void WalReader::SetCodec(const SegmentCodec& codec) {
  for (size_t t = 0; t < decodes_.size(); ++t) decodes_[t] = codec.Decodes(static_cast<uint8_t>(t));
  codec_ = &codec;
  format_ = codec.format();
  ignite_ = IsIgnite(format_);
  data_end_ = RulesOf(format_).data_end;
  header_size_ = codec.FrameHeaderSize();
}

FrameStatus WalReader::NextFrame(FrameView* fv) {
  // The frame at pos_: while the segment is still being decompressed, its header, then,
  // when its length is sound, all of it.
  if (bytes_.streaming()) {
    bytes_.Fill(pos_ + header_size_);
    std::string_view data = bytes_.bytes();
    if (data.size() > pos_) {
      if (const uint64_t extent = codec_->FrameExtent(data.data() + pos_, data.size() - pos_); extent != 0) {
        bytes_.Fill(pos_ + extent);
      }
    }
  }
  const std::string_view data = bytes_.bytes();
  const Pointer at{files_[file_idx_].index, static_cast<uint32_t>(pos_)};
  // walcut's own frames without a virtual call: this is the loop every command runs.
  if (!ignite_) return ParseFrame(data.data() + pos_, data.size() - pos_, at, options_.verify_checksums, fv);
  return codec_->Parse(data.data() + pos_, data.size() - pos_, at, options_.verify_checksums, fv);
}

void WalReader::EndOfBytes() {
  if (StreamDamaged()) return;
  const bool empty = bytes_.bytes().empty();
  if (empty && IsLastSegment()) {
    Report(MakeIssue(IssueKind::kTornTail, 0, "last segment is empty"));
  } else if (!saw_switch_ && !IsLastSegment() && data_end_ == FormatRules::DataEnd::kTornWrite) {
    // (Where an end mark ends the data, a segment filled to its last byte has no room for
    // a SWITCH.)
    Report(MakeIssue(IssueKind::kCorruption, pos_, "segment ends without a SWITCH_SEGMENT_RECORD but is not the last"));
  }
  EndSegment();
}

void WalReader::AfterSwitch() {
  if (data_end_ == FormatRules::DataEnd::kEndMark) {
    // Ignite reads nothing after a SWITCH; in a reused work file what follows is an
    // older segment's. A .wal.zip is read to its end all the same: its entry is checked
    // against the central directory there.
    if (options_.note_stale_bytes || files_[file_idx_].zip) {
      const bool zeros = bytes_.AllZeroFrom(pos_);
      if (!zeros && options_.note_stale_bytes) {
        Report(MakeIssue(IssueKind::kStaleBytes, pos_,
                         fmt::format("{} bytes after the SWITCH_SEGMENT_RECORD are an older segment's (a reused work "
                                     "file)",
                                     bytes_.bytes().size() - pos_)));
      }
    }
    EndSegment();
    return;
  }
  std::string_view data = bytes_.bytes();
  Report(MakeIssue(IssueKind::kCorruption, pos_,
                   bytes_.complete() ? fmt::format("{} bytes after the SWITCH_SEGMENT_RECORD", data.size() - pos_)
                                     : std::string("bytes after the SWITCH_SEGMENT_RECORD")));
  EndSegment();
}

bool WalReader::Step() {
  ReleaseBehind(pos_);
  const SegmentFile& f = files_[file_idx_];
  if (pos_ == 0 && record_index_ == 0) {
    bool emitted = false;
    if (!StartSegment(&emitted)) return false;
    if (emitted) return true;
  }
  if (pos_ <= ignite::kHeaderSize && (options_.from_is_boundary || (options_.from_is_record && ignite_)) &&
      f.index == options_.from.segment && options_.from.offset > pos_ && record_index_ <= 1 &&
      (pos_ == 0) == !ignite_) {
    if (!ResumeInSegment()) return false;
  }
  FrameView fv;
  const FrameStatus fs = NextFrame(&fv);
  if (pos_ >= bytes_.bytes().size()) {
    EndOfBytes();
    return false;
  }
  if (saw_switch_) {
    AfterSwitch();
    return false;
  }
  if (fs != FrameStatus::kOk) {
    if (record_index_ == 0 && BadHeaderFrame(fs, fv)) return false;
    HandleBadFrame(fs, fv);
    return false;
  }
  return Emit(fv);
}

bool WalReader::Emit(const FrameView& fv) {
  const SegmentFile& f = files_[file_idx_];
  record_.ptr = fv.ptr;
  record_.file_offset = pos_;
  record_.format = format_;
  record_.type = fv.type;
  record_.size = fv.size;
  record_.record_index = record_index_;
  record_.payload = fv.payload;
  const bool is_header = fv.type == static_cast<uint8_t>(RecordType::kHeader);
  if (options_.decode || record_index_ == 0 || is_header) {
    // A view refuses exactly what the decoder refuses (held by unit tests and the fuzz
    // targets), so a refused payload is decoded only for its message.
    Status ds;
    // (walcut's own payloads without a virtual call.)
    const bool viewed =
        options_.light && record_index_ != 0 &&
        (fv.type == static_cast<uint8_t>(RecordType::kTx)
             ? (ignite_ ? codec_->ViewTx(fv.payload, &record_.tx) : ViewTx(fv.payload, &record_.tx))
             : fv.type == static_cast<uint8_t>(RecordType::kData) &&
                   (ignite_ ? codec_->ViewData(fv.payload, &record_.data) : ViewData(fv.payload, &record_.data)));
    if (viewed || !decodes_[fv.type]) {
      record_.decoded.type = fv.type;  // (what Decode gives a type it does not decode)
    } else {
      ds = ignite_ ? codec_->Decode(fv.type, fv.payload, &record_.decoded)
                   : DecodePayload(fv.type, fv.payload, &record_.decoded);
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
