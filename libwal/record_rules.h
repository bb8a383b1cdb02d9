// The bounds every decoder of record payloads holds values to, whatever the format:
// shared by walcut's own decoder, its light views and Ignite's decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libwal/format.h"

namespace wal {

// walcut's encoding of a TxId: u32 topology version, u32 node order, u64 order.
inline constexpr size_t kTxIdSize = 16;

// A range (start, start + delta] of counters inside [1, kMaxCounter].
inline bool SoundRange(uint64_t start, uint64_t delta) {
  return delta >= 1 && start <= kMaxCounter && delta <= kMaxCounter - start;
}
inline bool SoundCounter(uint64_t c) { return c >= 1 && c <= kMaxCounter; }

// An Ignite partition id: below 65536 (a partition's id is a u16 in Ignite's page ids
// and checkpoint records), or -1, which Ignite writes for an entry whose partition it did
// not know (its restore then asks the cache's affinity).
inline bool SoundIgnitePartition(uint32_t p) { return p < 65536 || p == UINT32_MAX; }

// A snapshot's name names a directory.
inline bool SoundSnapshotName(std::string_view n) {
  if (n.empty() || n.size() > kMaxSnapshotNameSize || n == "." || n == "..") return false;
  return n.find('/') == std::string_view::npos && n.find('\0') == std::string_view::npos;
}

}  // namespace wal
