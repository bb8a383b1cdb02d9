#include "libwal/segment_codec.h"

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_frame.h"
#include "libwal/ignite_record.h"

namespace wal {
namespace {

class WalcutCodec final : public SegmentCodec {
 public:
  SegmentFormat format() const override { return SegmentFormat::kWalcut; }
  size_t FrameHeaderSize() const override { return kFrameHeaderSize; }
  uint64_t FrameExtent(const char* p, size_t avail) const override {
    if (avail < kFrameHeaderSize) return 0;
    const uint32_t length = DecodeFixed32(p);
    if (DecodeFixed32(p + 4) != ~length || length > kMaxPayloadSize) return 0;
    return uint64_t{length} + kFrameOverhead;
  }
  FrameStatus Parse(const char* p, size_t avail, Pointer at, bool verify, FrameView* out) const override {
    return ParseFrame(p, avail, at, verify, out);
  }
  Status Decode(uint8_t type, std::string_view payload, AnyRecord* out) const override {
    return DecodePayload(type, payload, out);
  }
  bool ViewTx(std::string_view payload, TxView* out) const override { return wal::ViewTx(payload, out); }
  bool ViewData(std::string_view payload, DataView* out) const override { return wal::ViewData(payload, out); }
  bool Decodes(uint8_t type) const override { return IsKnownRecordType(type); }
  const char* TypeName(uint8_t type) const override {
    return IsKnownRecordType(type) ? wal::RecordTypeName(type) : nullptr;
  }
};

class IgniteCodec final : public SegmentCodec {
 public:
  explicit IgniteCodec(SegmentFormat f) : format_(f) {}
  SegmentFormat format() const override { return format_; }
  size_t FrameHeaderSize() const override { return ignite::kFrameHeaderSize; }
  uint64_t FrameExtent(const char* p, size_t avail) const override { return IgniteFrameExtent(p, avail); }
  bool ZeroBeginsNoFrame() const override { return true; }
  FrameStatus Parse(const char* p, size_t avail, Pointer at, bool verify, FrameView* out) const override {
    return ParseIgniteFrame(p, avail, at, format_ == SegmentFormat::kIgniteCompacted, verify, out);
  }
  Status Decode(uint8_t type, std::string_view payload, AnyRecord* out) const override {
    return DecodeIgnitePayload(type, payload, out);
  }
  bool ViewTx(std::string_view payload, TxView* out) const override {
    if (!ViewIgniteTx(payload, out)) return false;
    out->format = format_;
    return true;
  }
  bool ViewData(std::string_view payload, DataView* out) const override {
    if (!ViewIgniteData(payload, out)) return false;
    out->format = format_;
    return true;
  }
  bool Decodes(uint8_t type) const override { return IsDecodedIgniteType(type); }
  const char* TypeName(uint8_t type) const override { return IgniteRecordTypeName(type); }

 private:
  SegmentFormat format_;
};

}  // namespace

const SegmentCodec& CodecFor(SegmentFormat format) {
  static const WalcutCodec walcut;
  static const IgniteCodec ignite(SegmentFormat::kIgnite);
  static const IgniteCodec compacted(SegmentFormat::kIgniteCompacted);
  switch (format) {
    case SegmentFormat::kIgnite: return ignite;
    case SegmentFormat::kIgniteCompacted: return compacted;
    case SegmentFormat::kWalcut: break;
  }
  return walcut;
}

const char* RecordTypeName(uint8_t type, SegmentFormat format) {
  const char* name = CodecFor(format).TypeName(type);
  return name != nullptr ? name : "UNKNOWN";
}

}  // namespace wal
