#include "libwal/ignite_frame.h"

#include <libdeflate.h>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"

namespace wal {

uint32_t IgniteFrameCrc(const char* data, size_t size) { return ~libdeflate_crc32(0, data, size); }

uint64_t IgniteFrameExtent(const char* p, size_t avail) {
  if (avail == 0) return 0;
  const auto type = static_cast<uint8_t>(p[0]);
  if (type == ignite::kSwitchByte) return 1;
  if (type == ignite::kStopByte || avail < ignite::kFrameHeaderSize) return 0;
  const auto len = static_cast<int32_t>(DecodeFixed32(p + 13));
  if (len < static_cast<int32_t>(ignite::kFrameOverhead) || static_cast<uint64_t>(len) > kMaxSegmentSize) return 0;
  return static_cast<uint64_t>(len);
}

FrameStatus ParseIgniteFrame(const char* p, size_t avail, Pointer at, bool compacted, bool verify, FrameView* out) {
  if (avail == 0) return FrameStatus::kShortHeader;
  const auto type_byte = static_cast<uint8_t>(p[0]);
  if (type_byte == ignite::kStopByte) return FrameStatus::kEndMark;
  if (type_byte == ignite::kSwitchByte) {
    out->type = static_cast<uint8_t>(RecordType::kSwitchSegment);
    out->size = 1;
    out->payload = {};
    out->stored_checksum = out->actual_checksum = 0;
    out->ptr = at;
    return FrameStatus::kOk;
  }
  if (avail < ignite::kFrameHeaderSize) return FrameStatus::kShortHeader;
  out->type = static_cast<uint8_t>(type_byte - 1);
  out->ptr = Pointer{DecodeFixed64(p + 1), DecodeFixed32(p + 9)};
  if (out->ptr.segment != at.segment || (!compacted && out->ptr.offset != at.offset)) {
    return FrameStatus::kForeignPointer;
  }
  const uint64_t len = IgniteFrameExtent(p, avail);
  if (len == 0) return FrameStatus::kBadLength;
  if (len > avail) return FrameStatus::kShortFrame;
  out->size = static_cast<uint32_t>(len);
  out->payload = std::string_view(p + ignite::kFrameHeaderSize, len - ignite::kFrameOverhead);
  out->stored_checksum = DecodeFixed32(p + len - 4);
  if (!verify) {
    out->actual_checksum = out->stored_checksum;
    return FrameStatus::kOk;
  }
  out->actual_checksum = IgniteFrameCrc(p, len - 4);
  return out->actual_checksum == out->stored_checksum ? FrameStatus::kOk : FrameStatus::kBadChecksum;
}

Status ParseIgniteHeader(std::string_view b, HeaderRecord* out) {
  if (b.size() < ignite::kHeaderSize) {
    return Status::Corruption(
        fmt::format("Ignite segment header cut short: {} of its {} bytes", b.size(), ignite::kHeaderSize));
  }
  if (static_cast<uint8_t>(b[0]) != ignite::kHeaderTypeByte || DecodeFixed32(b.data() + 9) != 0) {
    return Status::Corruption("Ignite segment header: bad type byte or offset");
  }
  out->segment = DecodeFixed64(b.data() + 1);
  out->magic = DecodeFixed64(b.data() + ignite::kHeaderMagicAt);
  out->version = DecodeFixed32(b.data() + ignite::kHeaderVersionAt);
  out->node_id = Uuid{};
  out->node_order = 0;
  if (out->version != ignite::kSerializerVersion) {
    return Status::NotSupported(
        fmt::format("Ignite WAL serializer version {} is not supported: walcut reads version {} (RecordV2Serializer, "
                    "Ignite 2.x's default); version 1 frames carry no length, so unknown records cannot be skipped",
                    out->version, ignite::kSerializerVersion));
  }
  if (out->segment > static_cast<uint64_t>(INT64_MAX)) {
    return Status::Corruption("Ignite segment header: negative segment index");
  }
  return Status::Ok();
}

std::string IgniteFrame(uint8_t type, Pointer at, std::string_view payload) {
  std::string out;
  PutFixed8(&out, static_cast<uint8_t>(type + 1));
  PutFixed64(&out, at.segment);
  PutFixed32(&out, at.offset);
  PutFixed32(&out, static_cast<uint32_t>(payload.size() + ignite::kFrameOverhead));
  out.append(payload);
  PutFixed32(&out, IgniteFrameCrc(out.data(), out.size()));
  return out;
}

std::string IgniteHeader(uint64_t segment, bool compacted, uint32_t version) {
  std::string out;
  PutFixed8(&out, ignite::kHeaderTypeByte);
  PutFixed64(&out, segment);
  PutFixed32(&out, 0);
  PutFixed64(&out, compacted ? ignite::kCompactedMagic : ignite::kRegularMagic);
  PutFixed32(&out, version);
  PutFixed32(&out, IgniteFrameCrc(out.data(), out.size()));
  return out;
}

}  // namespace wal
