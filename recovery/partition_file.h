// Partition data files: one per (cache, partition) copy on a node, entries sorted by
// key, with the copy's counters and a checksum over the whole file. Grammar in
// walcut-format(5), PARTITION DATA FILES.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/status.h"

namespace recovery {

inline constexpr uint64_t kPartitionFileMagic = 0x5452415054554357ULL;  // "WCUTPART"
inline constexpr uint32_t kPartitionFileVersion = 1;
// The largest partition file read.
inline constexpr uint64_t kMaxPartitionFileBytes = 1ull << 32;

// A partition copy's key in hash tables: its cache id and partition in one word, ordered
// as the pair (cache, partition).
inline uint64_t PackedCopyKey(uint32_t cache, uint32_t partition) { return uint64_t{cache} << 32 | partition; }

struct PartitionEntry {
  std::string key;
  std::string value;
  uint64_t counter = 0;  // partition counter of the write that produced this value
  bool operator==(const PartitionEntry&) const = default;
};

struct PartitionFile {
  uint32_t cache_id = 0;
  uint32_t partition = 0;
  uint64_t lwm = 0;
  uint64_t hwm = 0;
  std::vector<PartitionEntry> entries;  // strictly increasing keys
  bool operator==(const PartitionFile&) const = default;
};

// "part-<cache>-<partition>.dat", both in decimal, zero-padded to 5 digits (an Ignite
// cache id takes up to 10).
std::string PartitionFileName(uint32_t cache_id, uint32_t partition);
bool ParsePartitionFileName(std::string_view name, uint32_t* cache_id, uint32_t* partition);

// The partition files of `dir` (paths), in (cache, partition) order; other names are
// ignored, a missing directory gives none.
std::vector<std::string> ListPartitionFiles(const std::string& dir);

std::string EncodePartitionFile(const PartitionFile& file);
// kCorruption with the byte offset for anything that does not match the grammar,
// including a checksum mismatch and unsorted keys.
wal::Result<PartitionFile> DecodePartitionFile(std::string_view bytes);

// Written through a temporary file, fsync (unless `sync` is false) and rename.
wal::Status WritePartitionFile(const std::string& dir, const PartitionFile& file, bool sync = true);
wal::Result<PartitionFile> ReadPartitionFile(const std::string& path);

// The content hash that copies are compared by: XXH3 over (key, value) pairs in key
// order; counters are compared separately.
uint64_t ContentHash(const PartitionFile& file);
// The checksum stored in the file's last 8 bytes.
uint64_t FileChecksum(std::string_view encoded);

}  // namespace recovery
