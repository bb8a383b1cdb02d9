#include "libwal/segment_format.h"

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"

namespace wal {

const char* SegmentFormatName(SegmentFormat format) {
  switch (format) {
    case SegmentFormat::kWalcut: return "walcut";
    case SegmentFormat::kIgnite: return "ignite";
    case SegmentFormat::kIgniteCompacted: return "ignite-compacted";
  }
  return "unknown";
}

SegmentProbe ProbeSegment(std::string_view b) {
  SegmentProbe p;
  // walcut: u32 length · u32 ~length · u8 4 · magic (the first frame's payload).
  // A header with walcut's magic, or walcut's header frame around another magic, is
  // walcut's (its reader tells damage there from a foreign file).
  constexpr size_t kWalcutMagicAt = kFrameHeaderSize;
  const bool walcut_frame = b.size() >= kFrameHeaderSize && DecodeFixed32(b.data()) == kHeaderPayloadSize &&
                            DecodeFixed32(b.data() + 4) == ~static_cast<uint32_t>(kHeaderPayloadSize) &&
                            static_cast<uint8_t>(b[8]) == 4;
  if (walcut_frame || (b.size() >= kWalcutMagicAt + 8 && DecodeFixed64(b.data() + kWalcutMagicAt) == kSegmentMagic)) {
    p.result = SegmentProbe::kKnown;
    p.format = SegmentFormat::kWalcut;
    p.magic = kSegmentMagic;
    return p;
  }
  if (b.size() < ignite::kHeaderSize) {
    p.result = SegmentProbe::kTooShort;
    return p;
  }
  b = b.substr(0, ignite::kHeaderSize);
  if (b.find_first_not_of('\0') == std::string_view::npos) {
    p.result = SegmentProbe::kAllZero;
    return p;
  }
  const uint64_t ignite_magic = DecodeFixed64(b.data() + ignite::kHeaderMagicAt);
  if (static_cast<uint8_t>(b[0]) == ignite::kHeaderTypeByte &&
      (ignite_magic == ignite::kRegularMagic || ignite_magic == ignite::kCompactedMagic)) {
    p.result = SegmentProbe::kKnown;
    p.format = ignite_magic == ignite::kRegularMagic ? SegmentFormat::kIgnite : SegmentFormat::kIgniteCompacted;
    p.magic = ignite_magic;
    return p;
  }
  p.result = SegmentProbe::kUnknownMagic;
  p.magic = ignite_magic;  // the bytes where Ignite's magic would be
  return p;
}

}  // namespace wal
