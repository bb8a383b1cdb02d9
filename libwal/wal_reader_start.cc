// The start of each segment: which format its header names, the header checked, and
// resuming at a pointer inside it.
#include <algorithm>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_frame.h"
#include "libwal/wal_reader.h"

namespace wal {

bool WalReader::CheckHeader() {
  const HeaderRecord& h = record_.decoded.header;
  const SegmentFile& f = files_[file_idx_];
  const bool ignite = ignite_;
  if (!ignite && record_.type != static_cast<uint8_t>(RecordType::kHeader)) {
    Report(MakeIssue(IssueKind::kCorruption, 0,
                     fmt::format("segment does not begin with a HEADER_RECORD (type {})", record_.type)));
    return false;
  }
  if (!ignite && h.magic != kSegmentMagic) {
    Report(MakeIssue(IssueKind::kCorruption, 0,
                     fmt::format("bad segment magic 0x{:016x}, expected 0x{:016x}", h.magic, kSegmentMagic)));
    return false;
  }
  if (!ignite && (h.version == 0 || h.version > kFormatVersion)) {
    Report(MakeIssue(
        IssueKind::kCorruption, 0,
        fmt::format("unsupported format version {} (this reader knows up to {})", h.version, kFormatVersion)));
    return false;
  }
  if (h.segment != f.index) {
    Report(MakeIssue(IssueKind::kForeignSegment, 0,
                     fmt::format("header says segment {}, file name says {}", h.segment, f.index)));
    return false;
  }
  if (ignite) return true;  // Ignite's header names no node
  if (node_id_ && *node_id_ != h.node_id) {
    Report(MakeIssue(IssueKind::kForeignSegment, 0,
                     fmt::format("segment belongs to node {}, the directory to node {}", h.node_id.ToString(),
                                 node_id_->ToString())));
    return false;
  }
  node_id_ = h.node_id;
  node_order_ = h.node_order;
  return true;
}

bool WalReader::StartSegment(bool* emitted) {
  *emitted = false;
  bytes_.Fill(64);
  const SegmentProbe probe = ProbeSegment(bytes_.bytes());
  if (probe.result == SegmentProbe::kUnknownMagic) {
    Report(MakeIssue(
        IssueKind::kNotWal, 0,
        fmt::format("unknown magic 0x{:016x}: the header is neither walcut's nor Apache Ignite's", probe.magic)));
    EndSegment();
    return false;
  }
  // Too short or zeros: walcut's rules tell an empty or unwritten last segment.
  SetCodec(CodecFor(probe.result == SegmentProbe::kKnown ? probe.format : SegmentFormat::kWalcut));
  if (!ignite_) return true;
  // Ignite's header is no frame: 29 bytes, read here.
  Status hs = ParseIgniteHeader(bytes_.bytes(), &record_.decoded.header);
  if (!hs.ok()) {
    Report(MakeIssue(hs.code() == StatusCode::kNotSupported ? IssueKind::kUnsupported : IssueKind::kCorruption, 0,
                     hs.message()));
    EndSegment();
    return false;
  }
  record_.type = static_cast<uint8_t>(RecordType::kHeader);
  record_.decoded.type = record_.type;
  if (!CheckHeader()) {
    EndSegment();
    return false;
  }
  record_.ptr = Pointer{files_[file_idx_].index, 0};
  record_.file_offset = 0;
  record_.format = format_;
  record_.size = ignite::kHeaderSize;
  record_.record_index = 0;
  record_.payload = bytes_.bytes().substr(0, ignite::kHeaderSize);
  pos_ = ignite::kHeaderSize;
  record_index_ = 1;
  end_ = Pointer{files_[file_idx_].index, static_cast<uint32_t>(pos_)};
  *emitted = true;
  return true;
}

bool WalReader::ResumeInSegment() {
  // Resuming: the header was verified by the run that produced `from`; still check it
  // so a replaced file is noticed.
  const SegmentFile& f = files_[file_idx_];
  if (ignite_) {
    if (!CheckHeader()) {
      EndSegment();
      return false;
    }
  } else {
    bytes_.Fill(kFrameOverhead + kHeaderPayloadSize);
    std::string_view data = bytes_.bytes();
    FrameView hv;
    if (!(ParseFrame(data.data(), data.size(), Pointer{f.index, 0}, options_.verify_checksums, &hv) ==
              FrameStatus::kOk &&
          hv.type == static_cast<uint8_t>(RecordType::kHeader) &&
          DecodePayload(hv.type, hv.payload, &record_.decoded).ok())) {
      return true;  // read from the beginning, where the damage will be reported
    }
    record_.type = hv.type;
    if (!CheckHeader()) {
      EndSegment();
      return false;
    }
  }
  if (options_.from_is_record && format_ == SegmentFormat::kIgniteCompacted) {
    // Its records keep the offsets they had in the raw segment, not their own: read from
    // the beginning, returning nothing before `from`.
    return true;
  }
  bytes_.Fill(options_.from.offset);
  if (options_.from_is_record) {
    // A pointer from elsewhere (an Ignite snapshot's metadata) is taken only when a sound
    // frame carrying that very pointer lies there; else the segment is read from its
    // beginning, returning nothing before `from`.
    std::string_view data = bytes_.bytes();
    if (options_.from.offset >= data.size()) return true;
    bytes_.Fill(options_.from.offset + header_size_);
    data = bytes_.bytes();
    if (const uint64_t extent =
            codec_->FrameExtent(data.data() + options_.from.offset, data.size() - options_.from.offset);
        extent != 0) {
      bytes_.Fill(options_.from.offset + extent);
      data = bytes_.bytes();
    }
    FrameView fv;
    if (codec_->Parse(data.data() + options_.from.offset, data.size() - options_.from.offset, options_.from, true,
                      &fv) != FrameStatus::kOk ||
        fv.type == static_cast<uint8_t>(RecordType::kSwitchSegment)) {  // one byte: no CRC, no pointer
      return true;
    }
  }
  pos_ = std::min<uint64_t>(options_.from.offset, bytes_.bytes().size());
  record_index_ = 1;
  return true;
}

bool WalReader::BadHeaderFrame(FrameStatus fs, const FrameView& fv) {
  const SegmentFile& f = files_[file_idx_];
  std::string_view data = bytes_.bytes();
  if (fs == FrameStatus::kBadChecksum && fv.payload.size() == kHeaderPayloadSize) {
    // A header that verifies only at the index it names: a segment file renamed or
    // copied into the wrong place, not damaged bytes.
    const uint64_t claimed = DecodeFixed64(fv.payload.data() + 12);
    FrameView again;
    if (claimed != f.index &&
        ParseFrame(data.data(), data.size(), Pointer{claimed, 0}, true, &again) == FrameStatus::kOk) {
      Report(MakeIssue(IssueKind::kForeignSegment, 0,
                       fmt::format("header says segment {}, file name says {}", claimed, f.index)));
      EndSegment();
      return true;
    }
  }
  if ((fs == FrameStatus::kBadChecksum || fs == FrameStatus::kBadLength) &&
      !(IsLastSegment() && bytes_.AllZeroFrom(0))) {
    // A header that does not verify gives the segment no identity (whose node, which
    // index): nothing after it can be attributed, so the whole segment is skipped.
    Issue issue = MakeIssue(IssueKind::kCorruption, 0,
                            "the segment header does not verify: the segment's node and index are unknown, so the "
                            "segment is skipped");
    issue.has_checksums = fs == FrameStatus::kBadChecksum;
    issue.expected_checksum = fv.stored_checksum;
    issue.actual_checksum = fv.actual_checksum;
    issue.bytes_skipped = bytes_.bytes().size();
    Report(issue);
    EndSegment();
    return true;
  }
  return false;
}

}  // namespace wal
