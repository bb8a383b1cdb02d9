#include "libwal/ignite_page.h"

#include <libdeflate.h>

#include <fmt/format.h>

#include "libwal/coding.h"

namespace wal::ignite_page {
namespace {

// Where AbstractDataPageIO keeps its fields, and PagePartitionMetaIO, BPlusIO theirs.
constexpr size_t kFreeSpaceOff = 48;
constexpr size_t kDirectCountOff = 50;
constexpr size_t kIndirectCountOff = 51;
constexpr size_t kFirstEntryOff = 52;
constexpr size_t kItemsOff = 54;
constexpr uint16_t kFragmentedFlag = 0x8000;
constexpr size_t kLinkSize = 8;

constexpr size_t kMetaTreeRootOff = 48;
constexpr size_t kMetaSizeOff = 104;
constexpr size_t kMetaCounterOff = 112;
constexpr size_t kMetaRemoveIdOff = 120;
constexpr size_t kMetaStateOff = 128;
constexpr size_t kMetaCountersPageOff = 129;
constexpr size_t kMetaGapsLinkOff = 153;  // version 2 on
constexpr size_t kMetaEnd[] = {0, 137, 161, 169};

constexpr size_t kTreeLevelsOff = 40;
constexpr size_t kLeafCountOff = 40;
constexpr size_t kLeafForwardOff = 42;
constexpr size_t kLeafItemsOff = 58;

bool Fail(std::string* why, std::string what) {
  *why = std::move(what);
  return false;
}

}  // namespace

bool ParseFileHeader(std::string_view b, FileHeader* out, std::string* why) {
  if (b.size() < kHeaderFieldsSize)
    return Fail(why, fmt::format("{} bytes: shorter than a page file's header", b.size()));
  const uint64_t sig = DecodeFixed64(b.data());
  if (sig != kSignature) return Fail(why, fmt::format("signature 0x{:016x} is not a page file's", sig));
  out->version = DecodeFixed32(b.data() + 8);
  out->type = static_cast<uint8_t>(b[12]);
  out->page_size = DecodeFixed32(b.data() + 13);
  if (out->version != 1 && out->version != 2) {
    return Fail(why, fmt::format("page file version {} (Ignite writes 1 and 2)", out->version));
  }
  if (out->type != kStoreData && out->type != kStoreIndex) {
    return Fail(why, fmt::format("page file type {} (1 data, 2 index)", out->type));
  }
  const uint32_t ps = out->page_size;
  if (ps < kMinPageSize || ps > kMaxPageSize || (ps & (ps - 1)) != 0) {
    return Fail(why,
                fmt::format("page size {} (Ignite's is a power of two from {} to {})", ps, kMinPageSize, kMaxPageSize));
  }
  out->size = out->version == 1 ? kHeaderFieldsSize : ps;
  return true;
}

PageHeader ParsePageHeader(std::string_view page) {
  PageHeader h;
  h.type = DecodeFixed16(page.data());
  h.version = DecodeFixed16(page.data() + 2);
  h.crc = DecodeFixed32(page.data() + 4);
  h.page_id = DecodeFixed64(page.data() + 8);
  h.compression = static_cast<uint8_t>(page[17]);
  h.compressed_size = DecodeFixed16(page.data() + 18);
  return h;
}

uint32_t PageCrc(std::string_view page) {
  static constexpr char kZero[4] = {};
  uint32_t c = libdeflate_crc32(0, page.data(), 4);
  c = libdeflate_crc32(c, kZero, 4);
  c = libdeflate_crc32(c, page.data() + 8, page.size() - 8);
  return ~c;
}

bool ParseDataPage(std::string_view page, DataPage* out, std::string* why) {
  if (page.size() < kItemsOff) return Fail(why, "a data page shorter than its header");
  out->free_space = static_cast<int16_t>(DecodeFixed16(page.data() + kFreeSpaceOff));
  out->direct = static_cast<uint8_t>(page[kDirectCountOff]);
  out->indirect = static_cast<uint8_t>(page[kIndirectCountOff]);
  out->first_entry = DecodeFixed16(page.data() + kFirstEntryOff);
  const size_t items_end = kItemsOff + 2 * (size_t{out->direct} + out->indirect);
  if (items_end > page.size()) {
    return Fail(why, fmt::format("{} direct and {} indirect items do not fit in the page", out->direct, out->indirect));
  }
  if (out->indirect > out->direct) {
    return Fail(why, fmt::format("{} indirect items for {} direct ones", out->indirect, out->direct));
  }
  return true;
}

bool DirectPayload(std::string_view page, const DataPage& d, uint8_t i, Payload* out, std::string* why) {
  if (i >= d.direct) return Fail(why, fmt::format("item {} of {} direct items", i, d.direct));
  const size_t items_end = kItemsOff + 2 * (size_t{d.direct} + d.indirect);
  const uint16_t off = DecodeFixed16(page.data() + kItemsOff + 2 * size_t{i});
  if (off < items_end || size_t{off} + 2 > page.size()) {
    return Fail(why, fmt::format("item {} points at offset {}, outside the page's entries", i, off));
  }
  const uint16_t len = DecodeFixed16(page.data() + off);
  out->offset = off;
  out->fragmented = (len & kFragmentedFlag) != 0;
  size_t at = size_t{off} + 2;
  out->next = 0;
  if (out->fragmented) {
    if (at + kLinkSize > page.size()) return Fail(why, fmt::format("item {}: its fragment link runs past the page", i));
    out->next = DecodeFixed64(page.data() + at);
    at += kLinkSize;
  }
  const size_t n = len & 0x7FFFu;
  if (at + n > page.size()) {
    return Fail(why, fmt::format("item {}: an entry of {} bytes at offset {} runs past the page", i, n, off));
  }
  out->bytes = page.substr(at, n);
  return true;
}

bool ItemPayload(std::string_view page, const DataPage& d, uint8_t item_id, Payload* out, std::string* why) {
  if (item_id < d.direct) return DirectPayload(page, d, item_id, out, why);
  for (size_t k = d.direct; k < size_t{d.direct} + d.indirect; ++k) {
    const uint16_t v = DecodeFixed16(page.data() + kItemsOff + 2 * k);
    if ((v >> 8) == item_id) return DirectPayload(page, d, static_cast<uint8_t>(v & 0xFF), out, why);
  }
  return Fail(why,
              fmt::format("no item {} (the page has {} direct and {} indirect items)", item_id, d.direct, d.indirect));
}

namespace {

bool GetObject(Decoder* d, int8_t* type, std::string_view* bytes, const char* what, std::string* why) {
  uint32_t len = 0;
  uint8_t t = 0;
  if (!d->GetFixed32(&len) || !d->GetFixed8(&t)) return Fail(why, fmt::format("the {} runs past the row", what));
  if (static_cast<int32_t>(len) < 0)
    return Fail(why, fmt::format("the {} has length {}", what, static_cast<int32_t>(len)));
  if (!d->GetRaw(len, bytes)) return Fail(why, fmt::format("the {} ({} bytes) runs past the row", what, len));
  *type = static_cast<int8_t>(t);
  return true;
}

bool GetRowVersion(Decoder* d, RowVersion* v, std::string* why) {
  uint8_t proto = 0;
  if (!d->GetFixed8(&proto)) return Fail(why, "the version runs past the row");
  if (proto != 1 && proto != 2) return Fail(why, fmt::format("version protocol {} (1 or 2)", proto));
  v->conflict = proto == 2;
  std::string_view conflict;
  if (!d->GetFixed32(&v->topology_version) || !d->GetFixed32(&v->node_order) || !d->GetFixed64(&v->order) ||
      (v->conflict && !d->GetRaw(16, &conflict))) {
    return Fail(why, "the version runs past the row");
  }
  return true;
}

bool GetExpire(Decoder* d, int64_t* t, std::string* why) {
  uint64_t v = 0;
  if (!d->GetFixed64(&v)) return Fail(why, "the expire time runs past the row");
  *t = static_cast<int64_t>(v);
  return true;
}

}  // namespace

bool ParseRow(std::string_view bytes, bool fragmented, Row* out, std::string* why) {
  Decoder d(bytes);
  if (!GetObject(&d, &out->key_type, &out->key, "key", why)) return false;
  if (fragmented && !GetExpire(&d, &out->expire_time, why)) return false;
  if (!GetObject(&d, &out->value_type, &out->value, "value", why) || !GetRowVersion(&d, &out->version, why)) {
    return false;
  }
  if (!fragmented && !GetExpire(&d, &out->expire_time, why)) return false;
  if (!d.done()) return Fail(why, fmt::format("{} bytes follow the row", d.remaining()));
  return true;
}

bool ParsePartitionMeta(std::string_view page, PartitionMeta* out, std::string* why) {
  const PageHeader h = ParsePageHeader(page);
  if (h.type != kPartitionMeta)
    return Fail(why, fmt::format("page 0 is {}, not the partition meta page", PageTypeName(h.type)));
  if (h.version < 1 || h.version > 3)
    return Fail(why, fmt::format("partition meta page version {} (1 to 3)", h.version));
  if (page.size() < kMetaEnd[h.version]) return Fail(why, "the partition meta page is cut short");
  out->version = h.version;
  out->tree_root = DecodeFixed64(page.data() + kMetaTreeRootOff);
  out->size = static_cast<int64_t>(DecodeFixed64(page.data() + kMetaSizeOff));
  out->update_counter = DecodeFixed64(page.data() + kMetaCounterOff);
  out->global_remove_id = DecodeFixed64(page.data() + kMetaRemoveIdOff);
  out->state = static_cast<int8_t>(page[kMetaStateOff]);
  out->counters_page = DecodeFixed64(page.data() + kMetaCountersPageOff);
  out->gaps_link = h.version >= 2 ? DecodeFixed64(page.data() + kMetaGapsLinkOff) : 0;
  return true;
}

const char* PartitionStateName(int8_t state) {
  switch (state) {
    case 0: return "MOVING";
    case 1: return "OWNING";
    case 2: return "RENTING";
    case 3: return "EVICTED";
    case 4: return "LOST";
    default: return "unknown";
  }
}

bool ParseTreeMeta(std::string_view page, uint64_t* leftmost_leaf, std::string* why) {
  const PageHeader h = ParsePageHeader(page);
  if (h.type != kBPlusMeta) return Fail(why, fmt::format("{}, not a tree's meta page", PageTypeName(h.type)));
  size_t levels_at = 0;
  switch (h.version) {
    case 1: levels_at = 41; break;
    case 2:
    case 3: levels_at = 43; break;
    case 4: levels_at = 82; break;
    default: return Fail(why, fmt::format("tree meta page version {} (1 to 4)", h.version));
  }
  const uint8_t levels = static_cast<uint8_t>(page[kTreeLevelsOff]);
  if (levels == 0 || levels_at + 8 * size_t{levels} > page.size()) {
    return Fail(why, fmt::format("a tree of {} levels", levels));
  }
  *leftmost_leaf = DecodeFixed64(page.data() + levels_at);
  return true;
}

bool ParseDataLeaf(std::string_view page, uint64_t* forward, std::vector<LeafItem>* items, std::string* why) {
  const PageHeader h = ParsePageHeader(page);
  if (h.type != kDataRefLeaf && h.type != kCacheIdDataRefLeaf) {
    return Fail(why, fmt::format("{}, not a data tree leaf", PageTypeName(h.type)));
  }
  const size_t item_size = h.type == kCacheIdDataRefLeaf ? 16 : 12;
  const uint16_t n = DecodeFixed16(page.data() + kLeafCountOff);
  if (kLeafItemsOff + n * item_size > page.size()) return Fail(why, fmt::format("{} leaf items do not fit", n));
  *forward = DecodeFixed64(page.data() + kLeafForwardOff);
  for (size_t i = 0; i < n; ++i) {
    const char* p = page.data() + kLeafItemsOff + i * item_size;
    LeafItem it;
    it.link = DecodeFixed64(p);
    it.hash = static_cast<int32_t>(DecodeFixed32(p + 8));
    it.cache_id = item_size == 16 ? static_cast<int32_t>(DecodeFixed32(p + 12)) : 0;
    items->push_back(it);
  }
  return true;
}

std::string PageTypeName(uint16_t type) {
  switch (type) {
    case kData: return "T_DATA";
    case kBPlusMeta: return "T_BPLUS_META";
    case kDataRefInner: return "T_DATA_REF_INNER";
    case kDataRefLeaf: return "T_DATA_REF_LEAF";
    case 10: return "T_PENDING_REF_LEAF";
    case 12: return "T_PAGE_LIST_META";
    case 13: return "T_PAGE_LIST_NODE";
    case kPartitionMeta: return "T_PART_META";
    case 15: return "T_PAGE_UPDATE_TRACKING";
    case kCacheIdDataRefInner: return "T_CACHE_ID_AWARE_DATA_REF_INNER";
    case kCacheIdDataRefLeaf: return "T_CACHE_ID_AWARE_DATA_REF_LEAF";
    case 19: return "T_CACHE_ID_AWARE_PENDING_REF_LEAF";
    case 20: return "T_PART_CNTRS";
    case 32: return "T_DATA_PART";
    default: return fmt::format("page type {}", type);
  }
}

}  // namespace wal::ignite_page
