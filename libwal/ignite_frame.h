// Apache Ignite's record framing (RecordV2Serializer) and segment header: the grammar
// is in man/walcut-format.5, the numbers in ignite_format.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libwal/frame.h"
#include "libwal/ids.h"
#include "libwal/record.h"
#include "libwal/status.h"

namespace wal {

// CRC-32 (zlib's polynomial and convention) of the bytes, as Ignite stores it: inverted.
uint32_t IgniteFrameCrc(const char* data, size_t size);

// The whole size of the frame at p (its `len`), when at least its header is available
// and the length is sound; 0 otherwise. A SWITCH byte is a frame of 1.
uint64_t IgniteFrameExtent(const char* p, size_t avail);

// Parses the frame at p, which lies at `at` in its segment's bytes. The type byte 0 is
// kEndMark; a SWITCH byte is a frame of type SWITCH_SEGMENT_RECORD, size 1, no payload;
// a frame whose stored segment index differs from at.segment, or (unless `compacted`)
// whose stored offset differs from at.offset, is kForeignPointer. out->ptr is the
// stored pointer; checksums are the CRC words (stored inverted, as Ignite does).
FrameStatus ParseIgniteFrame(const char* p, size_t avail, Pointer at, bool compacted, bool verify, FrameView* out);

// The 29-byte segment header. kCorruption when it is not one; kNotSupported for a
// serializer version other than 2 (the message says which).
Status ParseIgniteHeader(std::string_view bytes, HeaderRecord* out);

// Builds a frame (tests and fuzzing): type, pointer, payload, and a sound CRC.
std::string IgniteFrame(uint8_t type, Pointer at, std::string_view payload);
// Builds a segment header.
std::string IgniteHeader(uint64_t segment, bool compacted, uint32_t version = 2);

}  // namespace wal
