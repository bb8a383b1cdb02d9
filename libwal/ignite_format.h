// The numbers of Apache Ignite's WAL on disk (2.15 to 2.17, serializer version 2), as
// walcut reads it. man/walcut-format.5, APACHE IGNITE SEGMENTS, is the grammar; this
// header is its numbers. Ignite writes in the JVM's native byte order: little-endian on
// every platform it runs on with native persistence.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wal::ignite {

// Segment header, 29 bytes: u8 5 (HEADER_RECORD + 1) · i64 segment index · i32 0 ·
// i64 magic · i32 serializer version · i32 CRC (written by Ignite, never checked by it).
inline constexpr size_t kHeaderSize = 29;
inline constexpr size_t kHeaderMagicAt = 13;
inline constexpr size_t kHeaderVersionAt = 21;
inline constexpr uint8_t kHeaderTypeByte = 5;
inline constexpr uint64_t kRegularMagic = 0xB0D045ACE7ED045AULL;
inline constexpr uint64_t kCompactedMagic = 0x4E07AE0E573A694EULL;
inline constexpr uint32_t kSerializerVersion = 2;

// Record frame: u8 (type + 1) · i64 segment index · i32 file offset · i32 len · payload ·
// i32 CRC. `len` counts the whole frame; the CRC is CRC-32 (zlib's) of the type byte
// through the payload, stored inverted.
inline constexpr size_t kFrameHeaderSize = 17;
inline constexpr size_t kFrameOverhead = kFrameHeaderSize + 4;
// Type bytes that are not frames: 0 ends the data (Ignite's STOP_ITERATION), 41 is
// SWITCH_SEGMENT_RECORD, one byte that seals the segment.
inline constexpr uint8_t kStopByte = 0;
inline constexpr uint8_t kSwitchByte = 41;

// The type id of a TX_RECORD participant that stands for every other baseline node.
inline constexpr uint16_t kAllOtherNodes = 32767;

// Cache object types (the byte before an object's bytes).
inline constexpr int8_t kObjectRegular = 1;  // binary-marshalled: first byte is the type code
inline constexpr int8_t kObjectByteArray = 2;
inline constexpr int8_t kObjectBinary = 100;  // a binary object (header byte 103)
inline constexpr int8_t kObjectEnum = 101;
inline constexpr int8_t kObjectTransformed = -3;  // rewritten by a plugin (2.15+): opaque

// The largest snapshot metadata file (.smf) read: a few hundred bytes to a few KiB in
// practice, its partitions' lists included.
inline constexpr uint64_t kMaxSmfBytes = 1 << 20;

// Ignite's GridCacheOperation ordinals of entries that change nothing.
inline constexpr uint8_t kOpRead = 0;
inline constexpr uint8_t kOpNoop = 6;

// A GridCacheVersion's second word: node order in the low 27 bits, data-center id above.
inline constexpr uint32_t kNodeOrderMask = (1u << 27) - 1;

}  // namespace wal::ignite
