#include "libwal/frame.h"

#include <xxhash.h>

#include "libwal/coding.h"

namespace wal {

uint64_t FrameChecksum(const char* frame_without_trailer, size_t size, Pointer at) {
  return XXH3_64bits_withSeed(frame_without_trailer, size, FrameSeed(at.segment, at.offset));
}

void SealFrame(uint8_t type, size_t start, Pointer at, std::string* out) {
  const auto length = static_cast<uint32_t>(out->size() - start - kFrameHeaderSize);
  char* p = out->data() + start;
  EncodeFixed32(p, length);
  EncodeFixed32(p + 4, ~length);
  p[8] = static_cast<char>(type);
  uint64_t sum = FrameChecksum(out->data() + start, out->size() - start, at);
  PutFixed64(out, sum);
}

size_t AppendRawFrame(uint8_t type, std::string_view payload, Pointer at, std::string* out) {
  size_t start = out->size();
  out->append(kFrameHeaderSize, '\0');
  out->append(payload.data(), payload.size());
  SealFrame(type, start, at, out);
  return out->size() - start;
}

FrameStatus ParseFrame(const char* data, size_t avail, Pointer at, bool verify, FrameView* out) {
  if (avail < kFrameHeaderSize) return FrameStatus::kShortHeader;
  uint32_t length = DecodeFixed32(data);
  uint32_t check = DecodeFixed32(data + 4);
  if (check != ~length || length > kMaxPayloadSize) return FrameStatus::kBadLength;
  out->type = static_cast<uint8_t>(data[8]);
  out->ptr = at;
  uint64_t total = uint64_t{length} + kFrameOverhead;
  if (total > avail) return FrameStatus::kShortFrame;
  out->size = static_cast<uint32_t>(total);
  out->payload = std::string_view(data + kFrameHeaderSize, length);
  out->stored_checksum = DecodeFixed64(data + kFrameHeaderSize + length);
  if (!verify) {
    out->actual_checksum = out->stored_checksum;
    return FrameStatus::kOk;
  }
  out->actual_checksum = FrameChecksum(data, kFrameHeaderSize + length, at);
  return out->actual_checksum == out->stored_checksum ? FrameStatus::kOk : FrameStatus::kBadChecksum;
}

}  // namespace wal
