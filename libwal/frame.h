// Framing: how a record's payload becomes bytes at an address, and back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libwal/format.h"
#include "libwal/ids.h"
#include "libwal/record.h"

namespace wal {

uint64_t FrameChecksum(const char* frame_without_trailer, size_t size, Pointer at);

// Completes a frame whose header space (kFrameHeaderSize bytes at `start`) was reserved
// in `out` and whose payload follows it up to out->size(): fills the header and
// appends the checksum.
void SealFrame(uint8_t type, size_t start, Pointer at, std::string* out);

// Appends the frame of record `r` placed at `at`; returns the frame's size in bytes.
template <typename R>
size_t AppendRecord(const R& r, Pointer at, std::string* out) {
  size_t start = out->size();
  out->append(kFrameHeaderSize, '\0');
  EncodePayload(r, out);
  SealFrame(static_cast<uint8_t>(TypeOf(r)), start, at, out);
  return out->size() - start;
}

// An empty-payload frame (SWITCH_SEGMENT_RECORD) or any type with raw payload bytes.
size_t AppendRawFrame(uint8_t type, std::string_view payload, Pointer at, std::string* out);

enum class FrameStatus {
  kOk,
  kShortHeader,  // fewer than kFrameHeaderSize bytes remain
  kShortFrame,   // the header is sound but the frame runs past the end of the bytes
  kBadLength,    // length and its complement disagree, or length exceeds kMaxPayloadSize
  kBadChecksum,  // the stored checksum does not match the bytes
  // Ignite's framing only (ignite_frame.h): no frame here, the data ended.
  kEndMark,         // the type byte is 0
  kForeignPointer,  // the frame's pointer names another segment (or, uncompacted, offset)
};

struct FrameView {
  uint8_t type = 0;
  uint32_t size = 0;  // whole frame, header to checksum
  std::string_view payload;
  uint64_t stored_checksum = 0;
  uint64_t actual_checksum = 0;  // computed; equals stored when verified and sound
  // The frame's pointer: where it was written. walcut's frames are where they were
  // written; Ignite's carry it (a compacted segment's frames keep their old pointers).
  Pointer ptr;
};

// Parses the frame that starts at data[0] (avail bytes readable), placed at `at`.
// With verify false the checksum is not computed (kBadChecksum never returned).
FrameStatus ParseFrame(const char* data, size_t avail, Pointer at, bool verify, FrameView* out);

}  // namespace wal
