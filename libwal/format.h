// The on-disk constants of the WAL. man/walcut-format.5 is the grammar; this header
// is its numbers. Change one and the format version must change with it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wal {

// Frame: u32 length | u32 ~length | u8 type | payload[length] | u64 checksum.
// checksum = XXH3_64bits_withSeed(frame bytes before the checksum, FrameSeed(ptr)).
inline constexpr size_t kFrameHeaderSize = 9;
inline constexpr size_t kFrameTrailerSize = 8;
inline constexpr size_t kFrameOverhead = kFrameHeaderSize + kFrameTrailerSize;

// A payload longer than this is refused by writer and reader alike.
inline constexpr uint32_t kMaxPayloadSize = 64u << 20;

// Segments: the writer rolls before a segment passes its size; one segment is never
// larger than kMaxSegmentSize bytes (uncompressed), so offsets fit in 32 bits.
inline constexpr uint64_t kMinSegmentSize = 4096;
inline constexpr uint64_t kMaxSegmentSize = 1ull << 30;
inline constexpr uint64_t kDefaultSegmentSize = 16ull << 20;

// First record of every segment is a HEADER_RECORD carrying these (payload:
// magic u64, version u32, segment u64, node id 16 bytes, node order u16).
inline constexpr size_t kHeaderPayloadSize = 8 + 4 + 8 + 16 + 2;
inline constexpr uint64_t kSegmentMagic = 0xB0D045ACE7ED045AULL;
inline constexpr uint32_t kFormatVersion = 1;

// Partition update counters are Java longs in the systems this format follows: every
// counter, range start and range end in a record is at most this, so that no counter
// arithmetic can overflow. A DATA entry's counter is at least 1; a range holds at least
// one counter.
inline constexpr uint64_t kMaxCounter = (uint64_t{1} << 63) - 1;

// A snapshot's name names a directory: 1 to this many bytes, no '/', no NUL, not "." or
// "..".
inline constexpr size_t kMaxSnapshotNameSize = 255;

// The checksum seed binds a frame to its address, so a frame copied to another place
// (a stale block, a duplicated record, a segment renamed) does not verify there.
inline constexpr uint64_t FrameSeed(uint64_t segment, uint32_t offset) {
  return (segment << 32) ^ offset ^ 0x57414C4355540001ULL;
}

}  // namespace wal
