// Apache Ignite's page store files (FilePageStore, versions 1 and 2): the file header,
// the 40-byte header of every page, data pages and the rows they hold (whole, or one
// fragment of a row larger than a page), the partition meta page and the leaves of a
// partition's data tree. Each function reads one page's bytes and never past them;
// what spans pages (following a row's fragments) is ignite_partition_file.h's. The
// grammar is in walcut-format(5), APACHE IGNITE PAGE FILES. All integers are
// little-endian (Ignite writes pages in the machine's order: x86 and ARM).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"

namespace wal::ignite_page {

inline constexpr uint64_t kSignature = 0xF19AC4FE60C530B8ULL;
inline constexpr size_t kHeaderFieldsSize = 17;  // signature, version, type, page size
inline constexpr uint32_t kMinPageSize = 1024;
inline constexpr uint32_t kMaxPageSize = 16384;
inline constexpr size_t kCommonHeaderEnd = 40;
// The index partition's file (index.bin): B+ trees of SQL indexes, no rows.
inline constexpr uint32_t kIndexPartition = 0xFFFF;
// Ignite's largest data partition id (PageIdAllocator.MAX_PARTITION_ID).
inline constexpr uint32_t kMaxPartition = 65500;

// The store types of the file header.
inline constexpr uint8_t kStoreData = 1;
inline constexpr uint8_t kStoreIndex = 2;

// Page types (PageIO.T_*) that are read.
enum PageType : uint16_t {
  kData = 1,
  kBPlusMeta = 2,
  kDataRefInner = 5,
  kDataRefLeaf = 6,
  kPartitionMeta = 14,
  kCacheIdDataRefInner = 16,
  kCacheIdDataRefLeaf = 17,
};

struct FileHeader {
  uint32_t version = 0;    // 1 or 2
  uint8_t type = 0;        // kStoreData or kStoreIndex
  uint32_t page_size = 0;  // a power of two from kMinPageSize to kMaxPageSize
  size_t size = 0;         // bytes before page 0: 17 (version 1) or one page (version 2)
};

// The header at the start of `bytes`; false with *why for anything that is not one.
bool ParseFileHeader(std::string_view bytes, FileHeader* out, std::string* why);

struct PageHeader {
  uint16_t type = 0;
  uint16_t version = 0;
  uint32_t crc = 0;
  uint64_t page_id = 0;
  uint8_t compression = 0;  // 0 none; 1 compacted, 2 ZSTD, 3 LZ4, 4 SNAPPY
  uint16_t compressed_size = 0;
};

// `page` holds at least kCommonHeaderEnd bytes.
PageHeader ParsePageHeader(std::string_view page);

// The CRC Ignite stores in a page: CRC-32 of the page with its CRC field (bytes 4 to 7)
// taken as zero, inverted.
uint32_t PageCrc(std::string_view page);

// The parts of a page id and of a link (a page id with a row's item id in its top byte).
inline uint32_t PageIndexOf(uint64_t id) { return static_cast<uint32_t>(id); }
inline uint32_t PartitionOf(uint64_t id) { return static_cast<uint32_t>(id >> 32) & 0xFFFF; }
inline uint8_t FlagOf(uint64_t id) { return static_cast<uint8_t>(id >> 48); }
inline uint8_t ItemOf(uint64_t link) { return static_cast<uint8_t>(link >> 56); }
inline constexpr uint8_t kFlagData = 1;

// A data page's header (AbstractDataPageIO).
struct DataPage {
  uint8_t direct = 0;    // items 0..direct-1 each point at one entry
  uint8_t indirect = 0;  // items after them map an item id to a direct item
  uint16_t first_entry = 0;
  int16_t free_space = 0;
};
bool ParseDataPage(std::string_view page, DataPage* out, std::string* why);

// One entry of a data page: a whole row, or a fragment of one (then `next` is the link
// of the fragment holding the bytes that follow, 0 for the last).
struct Payload {
  std::string_view bytes;
  uint16_t offset = 0;  // of the entry in the page
  bool fragmented = false;
  uint64_t next = 0;
};
// The entry of direct item `i` (< direct).
bool DirectPayload(std::string_view page, const DataPage& d, uint8_t i, Payload* out, std::string* why);
// The entry a link's item id names: a direct item, or one an indirect item maps to it.
bool ItemPayload(std::string_view page, const DataPage& d, uint8_t item_id, Payload* out, std::string* why);

// Ignite's GridCacheVersion as a row keeps it (CacheVersionIO): never null in a row.
struct RowVersion {
  uint32_t topology_version = 0;
  uint32_t node_order = 0;  // nodeOrderDrId: the data-center id in the top 5 bits
  uint64_t order = 0;
  bool conflict = false;  // a conflict version followed (protocol 2); not kept
  TxId AsTxId() const { return {topology_version, node_order, order}; }
};

// A row of a data page (CacheDataRowAdapter): key and value as cache objects (their type
// byte, and the bytes after it), version and expire time. A whole row is key, value,
// version, expire time; a row assembled from fragments is key, expire time, value,
// version. No cache id: Ignite writes one into a row only when its data region evicts
// pages, which a persistent region does not.
struct Row {
  int8_t key_type = 0;
  std::string_view key;
  int8_t value_type = 0;
  std::string_view value;
  RowVersion version;
  int64_t expire_time = 0;
};
// The row must take exactly all of `bytes`.
bool ParseRow(std::string_view bytes, bool fragmented, Row* out, std::string* why);

// The partition meta page (PagePartitionMetaIO versions 1 to 3), page 0 of part-N.bin.
struct PartitionMeta {
  uint16_t version = 0;
  uint64_t tree_root = 0;       // the data tree's meta page
  int64_t size = 0;             // rows, over every cache of the group
  uint64_t update_counter = 0;  // the partition's LWM when the page was written
  uint64_t global_remove_id = 0;
  int8_t state = 0;            // 0 MOVING, 1 OWNING, 2 RENTING, 3 EVICTED, 4 LOST
  uint64_t counters_page = 0;  // a shared group's per-cache sizes (0: none)
  uint64_t gaps_link = 0;      // version 2 on (0: no counter gaps)
};
bool ParsePartitionMeta(std::string_view page, PartitionMeta* out, std::string* why);
const char* PartitionStateName(int8_t state);

// A B+ tree's meta page (BPlusMetaIO): the first page of its lowest level, its leftmost
// leaf.
bool ParseTreeMeta(std::string_view page, uint64_t* leftmost_leaf, std::string* why);

// A leaf of a partition's data tree: each item a row's link, its key's hash and, in a
// shared group (kCacheIdDataRefLeaf), its cache id; `forward` the next leaf (0: last).
struct LeafItem {
  uint64_t link = 0;
  int32_t hash = 0;
  int32_t cache_id = 0;
};
bool ParseDataLeaf(std::string_view page, uint64_t* forward, std::vector<LeafItem>* items, std::string* why);

// The name of a page type for messages ("T_DATA"), or "type N".
std::string PageTypeName(uint16_t type);

}  // namespace wal::ignite_page
