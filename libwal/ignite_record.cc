#include "libwal/ignite_record.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_page.h"
#include "libwal/record_rules.h"

namespace wal {
namespace {

// WALRecord.RecordType of Ignite 2.15 to 2.17, by id (the type byte on disk is id + 1).
constexpr std::array<const char*, 82> kIgniteNames = {
    "TX_RECORD",
    "PAGE_RECORD",
    "DATA_RECORD",
    "CHECKPOINT_RECORD",
    "HEADER_RECORD",
    "INIT_NEW_PAGE_RECORD",
    "DATA_PAGE_INSERT_RECORD",
    "DATA_PAGE_INSERT_FRAGMENT_RECORD",
    "DATA_PAGE_REMOVE_RECORD",
    "DATA_PAGE_SET_FREE_LIST_PAGE",
    "BTREE_META_PAGE_INIT_ROOT",
    "BTREE_META_PAGE_ADD_ROOT",
    "BTREE_META_PAGE_CUT_ROOT",
    "BTREE_INIT_NEW_ROOT",
    "BTREE_PAGE_RECYCLE",
    "BTREE_PAGE_INSERT",
    "BTREE_FIX_LEFTMOST_CHILD",
    "BTREE_FIX_COUNT",
    "BTREE_PAGE_REPLACE",
    "BTREE_PAGE_REMOVE",
    "BTREE_PAGE_INNER_REPLACE",
    "BTREE_FIX_REMOVE_ID",
    "BTREE_FORWARD_PAGE_SPLIT",
    "BTREE_EXISTING_PAGE_SPLIT",
    "BTREE_PAGE_MERGE",
    "PAGES_LIST_SET_NEXT",
    "PAGES_LIST_SET_PREVIOUS",
    "PAGES_LIST_INIT_NEW_PAGE",
    "PAGES_LIST_ADD_PAGE",
    "PAGES_LIST_REMOVE_PAGE",
    "META_PAGE_INIT",
    "PARTITION_META_PAGE_UPDATE_COUNTERS",
    "MEMORY_RECOVERY",
    "TRACKING_PAGE_DELTA",
    "META_PAGE_UPDATE_LAST_SUCCESSFUL_SNAPSHOT_ID",
    "META_PAGE_UPDATE_LAST_SUCCESSFUL_FULL_SNAPSHOT_ID",
    "META_PAGE_UPDATE_NEXT_SNAPSHOT_ID",
    "META_PAGE_UPDATE_LAST_ALLOCATED_INDEX",
    "PART_META_UPDATE_STATE",
    "PAGE_LIST_META_RESET_COUNT_RECORD",
    "SWITCH_SEGMENT_RECORD",
    "DATA_PAGE_UPDATE_RECORD",
    "BTREE_META_PAGE_INIT_ROOT2",
    "PARTITION_DESTROY",
    "SNAPSHOT",
    "METASTORE_DATA_RECORD",
    "EXCHANGE",
    "RESERVED",
    "ROTATED_ID_PART_RECORD",
    "MVCC_DATA_PAGE_MARK_UPDATED_RECORD",
    "MVCC_DATA_PAGE_TX_STATE_HINT_UPDATED_RECORD",
    "MVCC_DATA_PAGE_NEW_TX_STATE_HINT_UPDATED_RECORD",
    "ENCRYPTED_RECORD",
    "ENCRYPTED_DATA_RECORD",
    "MVCC_DATA_RECORD",
    "MVCC_TX_RECORD",
    "CONSISTENT_CUT",
    "ROLLBACK_TX_RECORD",
    "PARTITION_META_PAGE_UPDATE_COUNTERS_V2",
    "BTREE_META_PAGE_INIT_ROOT_V3",
    "MASTER_KEY_CHANGE_RECORD",
    "TRACKING_PAGE_REPAIR_DELTA",
    "OUT_OF_ORDER_UPDATE",
    "ENCRYPTED_RECORD_V2",
    "ENCRYPTED_DATA_RECORD_V2",
    "MASTER_KEY_CHANGE_RECORD_V2",
    "REENCRYPTION_START_RECORD",
    "PARTITION_META_PAGE_DELTA_RECORD_V3",
    "INDEX_META_PAGE_DELTA_RECORD",
    "PARTITION_META_PAGE_DELTA_RECORD_V4",
    "DATA_RECORD_V2",
    "ENCRYPTED_DATA_RECORD_V3",
    "INDEX_ROOT_PAGE_RENAME_RECORD",
    "PARTITION_CLEARING_START_RECORD",
    "ENCRYPTED_OUT_OF_ORDER_UPDATE",
    "CLUSTER_SNAPSHOT",
    "INCREMENTAL_SNAPSHOT_START_RECORD",
    "INCREMENTAL_SNAPSHOT_FINISH_RECORD",
    "CDC_DATA_RECORD",
    "CDC_MANAGER_RECORD",
    "CDC_MANAGER_STOP_RECORD",
    "DATA_PAGE_FRAGMENTED_UPDATE_RECORD",
};

// The largest millisecond count whose nanoseconds fit in 64 bits.
constexpr uint64_t kMaxMillis = std::numeric_limits<uint64_t>::max() / 1000000;
// The fewest bytes an entry takes: cache id, key (length, type), null value, op, two null
// versions, partition, counter, expire time, flags.
constexpr size_t kMinIgniteEntrySize = 4 + 5 + 4 + 1 + 1 + 1 + 4 + 8 + 8 + 1;
constexpr size_t kVersionSize = 17;

bool GetI32(Decoder* d, int32_t* v) {
  uint32_t u = 0;
  if (!d->GetFixed32(&u)) return false;
  *v = static_cast<int32_t>(u);
  return true;
}

bool GetI64(Decoder* d, int64_t* v) {
  uint64_t u = 0;
  if (!d->GetFixed64(&u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

// An i32 count of elements of at least `min_size` bytes each that the rest can hold.
bool GetCount(Decoder* d, uint32_t* n, size_t min_size, const char** what) {
  int32_t v = 0;
  if (!GetI32(d, &v)) return false;
  if (v < 0 || static_cast<uint32_t>(v) > d->remaining() / min_size) {
    *what = "count larger than the payload";
    return d->Fail();
  }
  *n = static_cast<uint32_t>(v);
  return true;
}

bool GetIgniteUuid(Decoder* d, Uuid* u) { return d->GetFixed64(&u->hi) && d->GetFixed64(&u->lo); }

// GridCacheVersion: u8 protocol (0 null; 1 a version; 2 a version and its conflict
// version, which is not kept).
bool GetVersionField(Decoder* d, TxId* id, const char** what);

inline bool GetVersion(Decoder* d, TxId* id, const char** what) {
  // The usual shape, a version without its conflict version, read at once.
  if (!d->failed() && d->remaining() >= 17 && d->cursor()[0] == 1) {
    const char* p = d->cursor();
    id->topology_version = DecodeFixed32(p + 1);
    id->node_order = DecodeFixed32(p + 5);
    id->order = DecodeFixed64(p + 9);
    d->Skip(17);
    return true;
  }
  return GetVersionField(d, id, what);
}

// Any other shape, field by field.
bool GetVersionField(Decoder* d, TxId* id, const char** what) {
  uint8_t proto = 0;
  if (!d->GetFixed8(&proto)) return false;
  if (proto == 0) {
    *id = TxId{};
    return true;
  }
  if (proto > 2) {
    *what = "unknown version protocol";
    return d->Fail();
  }
  if (!(d->GetFixed32(&id->topology_version) && d->GetFixed32(&id->node_order) && d->GetFixed64(&id->order))) {
    return false;
  }
  std::string_view conflict;
  return proto == 1 || d->GetRaw(16, &conflict);
}

// A cache object: i32 length · u8 type · bytes; a nullable one is length −1 alone.
bool GetObject(Decoder* d, std::string_view* bytes, int8_t* type, bool* null, const char** what) {
  int32_t n = 0;
  if (!GetI32(d, &n)) return false;
  if (n == -1 && null != nullptr) {
    *null = true;
    *bytes = {};
    *type = 0;
    return true;
  }
  if (n < 0) {
    *what = "negative cache object length";
    return d->Fail();
  }
  if (null != nullptr) *null = false;
  uint8_t t = 0;
  if (!d->GetFixed8(&t)) return false;
  *type = static_cast<int8_t>(t);
  return d->GetRaw(static_cast<size_t>(n), bytes);
}

bool GetMillis(Decoder* d, uint64_t* ns, const char** what) {
  uint64_t ms = 0;
  if (!d->GetFixed64(&ms)) return false;
  if (ms > kMaxMillis) {
    *what = "timestamp out of range";
    return d->Fail();
  }
  *ns = ms * 1000000;
  return true;
}

bool GetEntry(Decoder* d, DataEntry* e, const char** what) {
  uint8_t op = 0;
  int64_t counter = 0;
  if (!(d->GetFixed32(&e->cache_id) && GetObject(d, &e->key, &e->key_type, nullptr, what) &&
        GetObject(d, &e->value, &e->value_type, &e->value_null, what) && d->GetFixed8(&op))) {
    return false;
  }
  if (op > kMaxEntryOpOrdinal) {
    *what = "invalid entry operation";
    return d->Fail();
  }
  e->op = static_cast<EntryOp>(op);
  if (!(GetVersion(d, &e->xid, what) && GetVersion(d, &e->write_version, what))) return false;
  // partition i32 · counter i64 · expire time i64 · flags u8, read at once when all there.
  if (!d->failed() && d->remaining() >= 21) {
    const char* p = d->cursor();
    e->partition = DecodeFixed32(p);
    counter = static_cast<int64_t>(DecodeFixed64(p + 4));
    e->expire_time = static_cast<int64_t>(DecodeFixed64(p + 12));
    e->flags = static_cast<uint8_t>(p[20]);
    d->Skip(21);
  } else if (!(d->GetFixed32(&e->partition) && GetI64(d, &counter) && GetI64(d, &e->expire_time) &&
               d->GetFixed8(&e->flags))) {
    return false;
  }
  if (counter < 0) {
    *what = "counter out of bounds";
    return d->Fail();
  }
  if (!SoundIgnitePartition(e->partition)) {
    *what = "partition id out of bounds";
    return d->Fail();
  }
  e->counter = static_cast<uint64_t>(counter);
  return true;
}

bool GetTx(Decoder* d, TxRecord* r, const char** what) {
  uint8_t state = 0;
  if (!d->GetFixed8(&state)) return false;
  if (state > kMaxTxStateOrdinal) {
    *what = "invalid transaction state";
    return d->Fail();
  }
  r->state = static_cast<TxState>(state);
  r->flags = 0;
  r->topology_version = 0;
  r->counters.clear();
  uint32_t n = 0;
  if (!(GetVersion(d, &r->xid, what) && GetVersion(d, &r->write_version, what) && GetCount(d, &n, 6, what))) {
    return false;
  }
  r->participants.resize(n);
  for (auto& p : r->participants) {
    uint32_t nb = 0;
    if (!(d->GetFixed16(&p.primary) && GetCount(d, &nb, 2, what))) return false;
    p.backups.resize(nb);
    for (auto& b : p.backups) {
      if (!d->GetFixed16(&b)) return false;
    }
  }
  return GetMillis(d, &r->timestamp, what);
}

bool GetData(Decoder* d, DataRecord* r, const char** what) {
  uint32_t n = 0;
  if (!(GetCount(d, &n, kMinIgniteEntrySize, what) && GetMillis(d, &r->timestamp, what))) return false;
  r->entries.resize(n);
  for (auto& e : r->entries) {
    if (!GetEntry(d, &e, what)) return false;
  }
  return true;
}

bool GetRollback(Decoder* d, RollbackRecord* r, const char** what) {
  int64_t start = 0, range = 0;
  if (!(d->GetFixed32(&r->cache_id) && d->GetFixed32(&r->partition) && GetI64(d, &start) && GetI64(d, &range))) {
    return false;
  }
  if (start < 0 || range < 0 || static_cast<uint64_t>(range) > kMaxCounter - static_cast<uint64_t>(start)) {
    *what = "counter range out of bounds";
    return d->Fail();
  }
  if (!SoundIgnitePartition(r->partition)) {
    *what = "partition id out of bounds";
    return d->Fail();
  }
  r->start = static_cast<uint64_t>(start);
  r->range = static_cast<uint64_t>(range);
  return true;
}

bool GetFinish(Decoder* d, CutFinishRecord* r, const char** what) {
  r->timestamp = 0;
  if (!GetIgniteUuid(d, &r->cut_id)) return false;
  for (auto* list : {&r->before, &r->after}) {
    uint32_t n = 0;
    if (!GetCount(d, &n, kVersionSize, what)) return false;
    list->resize(n);
    for (auto& id : *list) {
      if (!GetVersion(d, &id, what)) return false;
    }
  }
  return true;
}

bool GetCheckpoint(Decoder* d, CheckpointRecord* r, const char** what) {
  uint8_t has = 0, end = 0;
  uint16_t groups = 0;
  if (!(GetIgniteUuid(d, &r->id) && d->GetFixed8(&has))) return false;
  r->has_mark = has != 0;
  r->mark = Pointer{};
  r->mark_length = 0;
  if (r->has_mark &&
      !(d->GetFixed64(&r->mark.segment) && d->GetFixed32(&r->mark.offset) && d->GetFixed32(&r->mark_length))) {
    return false;
  }
  if (!d->GetCount16(&groups, 4 + 2)) return false;
  r->groups.resize(groups);
  for (auto& g : r->groups) {
    uint16_t parts = 0;
    uint32_t id = 0;
    if (!(d->GetFixed32(&id) && d->GetCount16(&parts, 2 + 8 + 8 + 1))) return false;
    g.group_id = static_cast<int32_t>(id);
    g.partitions.resize(parts);
    for (auto& p : g.partitions) {
      if (!(d->GetFixed16(&p.partition) && GetI64(d, &p.size) && GetI64(d, &p.counter) && d->GetFixed8(&p.state))) {
        return false;
      }
    }
  }
  if (!d->GetFixed8(&end)) return false;
  r->end = end != 0;
  if (has > 1 || end > 1) {
    *what = "invalid flag byte";
    return d->Fail();
  }
  return true;
}

Status MalformedIgnite(uint8_t type, const Decoder& d, const char* what) {
  return Status::Corruption(fmt::format("{} payload: {} at payload byte {}", IgniteRecordTypeName(type),
                                        what != nullptr ? what : "short", d.position()));
}

}  // namespace

const char* IgniteRecordTypeName(uint8_t type) { return type < kIgniteNames.size() ? kIgniteNames[type] : nullptr; }

bool IsIgniteOtherDataRecord(uint8_t type) {
  static const std::array<bool, 256> kBearing = [] {
    static constexpr std::string_view kNames[] = {
        "DATA_RECORD",      "ENCRYPTED_DATA_RECORD", "ENCRYPTED_DATA_RECORD_V2",     "ENCRYPTED_DATA_RECORD_V3",
        "MVCC_DATA_RECORD", "OUT_OF_ORDER_UPDATE",   "ENCRYPTED_OUT_OF_ORDER_UPDATE"};
    std::array<bool, 256> t{};
    for (size_t id = 0; id < t.size(); ++id) {
      const char* name = IgniteRecordTypeName(static_cast<uint8_t>(id));
      t[id] = name != nullptr && std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
    }
    return t;
  }();
  return kBearing[type];
}

bool ParseIgniteRecordType(std::string_view name, uint8_t* type) {
  for (size_t i = 0; i < kIgniteNames.size(); ++i) {
    std::string_view n = kIgniteNames[i];
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
          return a == std::toupper(static_cast<unsigned char>(b));
        })) {
      *type = static_cast<uint8_t>(i);
      return true;
    }
  }
  return false;
}

bool IsDecodedIgniteType(uint8_t type) {
  switch (static_cast<RecordType>(type)) {
    case RecordType::kTx:
    case RecordType::kCheckpoint:
    case RecordType::kRollback:
    case RecordType::kData:
    case RecordType::kClusterSnapshot:
    case RecordType::kCutStart:
    case RecordType::kCutFinish: return true;
    default: return false;
  }
}

Status DecodeIgnitePayload(uint8_t type, std::string_view payload, AnyRecord* out) {
  out->type = type;
  Decoder d(payload);
  const char* what = nullptr;
  bool ok = true;
  switch (static_cast<RecordType>(type)) {
    case RecordType::kTx: ok = GetTx(&d, &out->tx, &what); break;
    case RecordType::kData: ok = GetData(&d, &out->data, &what); break;
    case RecordType::kRollback: ok = GetRollback(&d, &out->rollback, &what); break;
    case RecordType::kClusterSnapshot:
      out->snapshot.timestamp = 0;
      ok = d.GetBytes(&out->snapshot.name);
      if (ok && !SoundSnapshotName(out->snapshot.name)) {
        return MalformedIgnite(type, d, "snapshot name not 1 to 255 bytes, or with '/' or NUL, or . or ..");
      }
      break;
    case RecordType::kCutStart:
      out->cut_start.topology_version = 0;
      out->cut_start.timestamp = 0;
      ok = GetIgniteUuid(&d, &out->cut_start.cut_id);
      break;
    case RecordType::kCutFinish: ok = GetFinish(&d, &out->cut_finish, &what); break;
    case RecordType::kCheckpoint: ok = GetCheckpoint(&d, &out->checkpoint, &what); break;
    default: return Status::Ok();  // skipped by its length, named by IgniteRecordTypeName
  }
  if (!ok) return MalformedIgnite(type, d, what);
  if (!d.done()) return MalformedIgnite(type, d, "trailing bytes");
  return Status::Ok();
}

bool ViewIgniteTx(std::string_view payload, TxView* r) {
  Decoder d(payload);
  const char* what = nullptr;
  uint8_t state = 0;
  uint32_t n = 0;
  if (!d.GetFixed8(&state) || state > kMaxTxStateOrdinal) return false;
  if (!(GetVersion(&d, &r->xid, &what) && GetVersion(&d, &r->write_version, &what) && GetCount(&d, &n, 6, &what))) {
    return false;
  }
  const size_t first = d.position();
  // Each participant: i16 primary · i32 backup count (what the rest can hold) · i16 backups.
  const char* p = d.cursor();
  const char* const end = p + d.remaining();
  for (uint32_t i = 0; i < n; ++i) {
    if (end - p < 6) return false;
    const auto nb = static_cast<int32_t>(DecodeFixed32(p + 2));
    p += 6;
    if (nb < 0 || static_cast<size_t>(nb) > static_cast<size_t>(end - p) / 2) return false;
    p += size_t{static_cast<uint32_t>(nb)} * 2;
  }
  d.Skip(static_cast<size_t>(p - d.cursor()));
  r->participants = payload.substr(first, d.position() - first);
  if (!GetMillis(&d, &r->timestamp, &what) || !d.done()) return false;
  r->state = static_cast<TxState>(state);
  r->flags = 0;
  r->topology_version = 0;
  r->format = SegmentFormat::kIgnite;
  r->participant_count = n;
  r->counter_count = 0;
  r->counters = {};
  return true;
}

bool ViewIgniteData(std::string_view payload, DataView* r) {
  Decoder d(payload);
  const char* what = nullptr;
  uint32_t n = 0;
  if (!(GetCount(&d, &n, kMinIgniteEntrySize, &what) && GetMillis(&d, &r->timestamp, &what))) return false;
  const size_t first = d.position();
  // Made once per thread: a DataEntry is zeroed when made, which costs more than
  // reading a small record's entries.
  thread_local DataEntry scratch;
  for (uint32_t i = 0; i < n; ++i) {
    if (!GetEntry(&d, &scratch, &what)) return false;
  }
  if (!d.done()) return false;
  r->count = n;
  r->entries = payload.substr(first);
  r->format = SegmentFormat::kIgnite;
  return true;
}

bool DataEntryCursor::NextIgnite(DataEntry* e) {
  Decoder d(std::string_view(p_, static_cast<size_t>(end_ - p_)));
  const char* what = nullptr;
  if (!GetEntry(&d, e, &what)) {
    left_ = 0;  // not reached for a viewed payload: ViewIgniteData read every entry
    return false;
  }
  --left_;
  p_ += d.position();
  return true;
}

namespace {

// Ignite's ids of the records read here (WALRecord.RecordType).
constexpr uint8_t kPageRecord = 1;
constexpr uint8_t kMetaCountersV1 = 31;
constexpr uint8_t kPartitionDestroy = 43;
constexpr uint8_t kMetaCountersV2 = 58;
constexpr uint8_t kMetaDeltaV3 = 67;

// PageIdUtils: page index in bits 0-31, partition in 32-47, flag in 48-55; a partition's
// meta page is index 0 of FLAG_DATA (1), of a partition below 65535 (the index one).
bool PartitionMetaPage(uint64_t page_id, uint32_t* partition) {
  const uint32_t index = static_cast<uint32_t>(page_id);
  const uint32_t part = static_cast<uint32_t>(page_id >> 32) & 0xFFFF;
  const uint32_t flag = static_cast<uint32_t>(page_id >> 48) & 0xFF;
  if (index != 0 || flag != 1 || part >= 65535) return false;
  *partition = part;
  return true;
}

}  // namespace

IgnitePartitionCounter ReadIgnitePartitionCounter(uint8_t type, std::string_view payload) {
  IgnitePartitionCounter out;
  Decoder d(payload);
  uint32_t group = 0;
  uint64_t page_id = 0;
  switch (type) {
    case kPartitionDestroy: {
      uint32_t part = 0;
      if (payload.size() != 8 || !d.GetFixed32(&group) || !d.GetFixed32(&part) || part >= 65535) {
        return out;
      }
      out.kind = IgnitePartitionCounter::Kind::kDestroyed;
      out.group = static_cast<int32_t>(group);
      out.partition = part;
      return out;
    }
    case kPageRecord: {
      // group, page id, then the page as it was after its change (its CRC not kept).
      if (payload.size() < 12 + ignite_page::kMinPageSize || !d.GetFixed32(&group) || !d.GetFixed64(&page_id) ||
          !PartitionMetaPage(page_id, &out.partition)) {
        return out;
      }
      ignite_page::PartitionMeta meta;
      std::string why;
      if (!ignite_page::ParsePartitionMeta(payload.substr(12), &meta, &why) || meta.update_counter > kMaxCounter) {
        return out;
      }
      out.lwm = meta.update_counter;
      break;
    }
    case kMetaCountersV1:
    case kMetaCountersV2:
    case kMetaDeltaV3: {
      const size_t want = type == kMetaCountersV1 ? 45 : type == kMetaCountersV2 ? 53 : 61;
      uint64_t counter = 0;
      if (payload.size() != want || !d.GetFixed32(&group) || !d.GetFixed64(&page_id) || !d.GetFixed64(&counter) ||
          !PartitionMetaPage(page_id, &out.partition) || counter > kMaxCounter) {
        return out;
      }
      out.lwm = counter;
      break;
    }
    default: return out;
  }
  out.kind = IgnitePartitionCounter::Kind::kLwm;
  out.group = static_cast<int32_t>(group);
  return out;
}

}  // namespace wal
