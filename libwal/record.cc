#include "libwal/record.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"
#include "libwal/record_rules.h"

namespace wal {
namespace {

struct TypeInfo {
  RecordType type;
  const char* name;
  const char* alias;
};

constexpr std::array<TypeInfo, 8> kTypes = {{
    {RecordType::kTx, "TX_RECORD", "tx"},
    {RecordType::kHeader, "HEADER_RECORD", "header"},
    {RecordType::kSwitchSegment, "SWITCH_SEGMENT_RECORD", "switch"},
    {RecordType::kRollback, "ROLLBACK_TX_RECORD", "rollback"},
    {RecordType::kData, "DATA_RECORD_V2", "data"},
    {RecordType::kClusterSnapshot, "CLUSTER_SNAPSHOT", "snapshot"},
    {RecordType::kCutStart, "INCREMENTAL_SNAPSHOT_START_RECORD", "cut-start"},
    {RecordType::kCutFinish, "INCREMENTAL_SNAPSHOT_FINISH_RECORD", "cut-finish"},
}};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// cache, partition, counter, op, flags, xid, write version, key length, value length
constexpr size_t kMinEntrySize = 4 + 4 + 8 + 1 + 1 + kTxIdSize + kTxIdSize + 4 + 4;

void PutUuid(std::string* dst, const Uuid& u) {
  PutFixed64(dst, u.hi);
  PutFixed64(dst, u.lo);
}

void PutTxId(std::string* dst, const TxId& id) {
  PutFixed32(dst, id.topology_version);
  PutFixed32(dst, id.node_order);
  PutFixed64(dst, id.order);
}

bool GetUuid(Decoder* d, Uuid* u) { return d->GetFixed64(&u->hi) && d->GetFixed64(&u->lo); }

bool GetTxId(Decoder* d, TxId* id) {
  return d->GetFixed32(&id->topology_version) && d->GetFixed32(&id->node_order) && d->GetFixed64(&id->order);
}

bool GetTxIdList(Decoder* d, std::vector<TxId>* out) {
  uint32_t n = 0;
  if (!d->GetCount32(&n, kTxIdSize)) return false;
  out->resize(n);
  for (auto& id : *out) {
    if (!GetTxId(d, &id)) return false;
  }
  return true;
}

Status Malformed(uint8_t type, const Decoder& d, const char* what) {
  return Status::Corruption(fmt::format("{} payload: {} at payload byte {}", RecordTypeName(type), what, d.position()));
}

Status DecodeHeader(Decoder* d, HeaderRecord* r) {
  if (!(d->GetFixed64(&r->magic) && d->GetFixed32(&r->version) && d->GetFixed64(&r->segment) &&
        GetUuid(d, &r->node_id) && d->GetFixed16(&r->node_order))) {
    return Malformed(4, *d, "short");
  }
  return Status::Ok();
}

Status DecodeTx(Decoder* d, TxRecord* r) {
  uint8_t state = 0;
  if (!d->GetFixed8(&state)) return Malformed(0, *d, "short");
  if (state != 2 && state != 5 && state != 7 && state != 8) {
    return Malformed(0, *d, "invalid transaction state");
  }
  r->state = static_cast<TxState>(state);
  r->write_version = TxId{};  // Ignite's only: the record may have held one of Ignite's
  if (!d->GetFixed8(&r->flags)) return Malformed(0, *d, "short");
  if ((r->flags & ~kTxKnownFlags) != 0) return Malformed(0, *d, "unknown flag bits");
  uint16_t n = 0;
  if (!(GetTxId(d, &r->xid) && d->GetFixed32(&r->topology_version) && d->GetFixed64(&r->timestamp) &&
        d->GetCount16(&n, 4))) {
    return Malformed(0, *d, "short");
  }
  r->participants.resize(n);
  for (auto& p : r->participants) {
    uint16_t nb = 0;
    if (!(d->GetFixed16(&p.primary) && d->GetCount16(&nb, 2))) return Malformed(0, *d, "short");
    p.backups.resize(nb);
    for (auto& b : p.backups) {
      if (!d->GetFixed16(&b)) return Malformed(0, *d, "short");
    }
  }
  uint16_t nc = 0;
  if (!d->GetCount16(&nc, 24)) return Malformed(0, *d, "short");
  r->counters.resize(nc);
  for (auto& c : r->counters) {
    if (!(d->GetFixed32(&c.cache_id) && d->GetFixed32(&c.partition) && d->GetFixed64(&c.start) &&
          d->GetFixed64(&c.delta))) {
      return Malformed(0, *d, "short");
    }
    if (!SoundRange(c.start, c.delta)) return Malformed(0, *d, "counter range out of bounds");
  }
  return Status::Ok();
}

Status DecodeData(Decoder* d, DataRecord* r) {
  uint32_t n = 0;
  if (!(d->GetFixed64(&r->timestamp) && d->GetCount32(&n, kMinEntrySize))) {
    return Malformed(70, *d, "short");
  }
  r->entries.resize(n);
  for (auto& e : r->entries) {
    uint8_t op = 0;
    if (!(d->GetFixed32(&e.cache_id) && d->GetFixed32(&e.partition) && d->GetFixed64(&e.counter) &&
          d->GetFixed8(&op))) {
      return Malformed(70, *d, "short entry");
    }
    if (!SoundCounter(e.counter)) return Malformed(70, *d, "counter out of bounds");
    if (op < 1 || op > 3) return Malformed(70, *d, "invalid entry operation");
    e.op = static_cast<EntryOp>(op);
    if (!d->GetFixed8(&e.flags)) return Malformed(70, *d, "short entry");
    if ((e.flags & ~kEntryFlagPrimary) != 0) return Malformed(70, *d, "unknown entry flag bits");
    if (!(GetTxId(d, &e.xid) && GetTxId(d, &e.write_version) && d->GetBytes(&e.key) && d->GetBytes(&e.value))) {
      return Malformed(70, *d, "short entry");
    }
    e.key_type = 0;
    e.value_type = 0;
    e.value_null = false;
    e.expire_time = 0;
  }
  return Status::Ok();
}

}  // namespace

const char* RecordTypeName(uint8_t type) {
  for (const auto& t : kTypes) {
    if (static_cast<uint8_t>(t.type) == type) return t.name;
  }
  return "UNKNOWN";
}

bool IsKnownRecordType(uint8_t type) {
  return std::any_of(kTypes.begin(), kTypes.end(),
                     [type](const TypeInfo& t) { return static_cast<uint8_t>(t.type) == type; });
}

std::vector<RecordTypeInfo> RecordTypes() {
  std::vector<RecordTypeInfo> out;
  for (const auto& t : kTypes) out.push_back({static_cast<uint8_t>(t.type), t.name, t.alias});
  std::sort(out.begin(), out.end(), [](const RecordTypeInfo& a, const RecordTypeInfo& b) { return a.id < b.id; });
  return out;
}

bool ParseRecordType(std::string_view name, RecordType* out) {
  for (const auto& t : kTypes) {
    if (EqualsIgnoreCase(name, t.name) || EqualsIgnoreCase(name, t.alias)) {
      *out = t.type;
      return true;
    }
  }
  return false;
}

const char* TxStateName(TxState state) {
  switch (state) {
    case TxState::kPrepared: return "PREPARED";
    case TxState::kCommitted: return "COMMITTED";
    case TxState::kRolledBack: return "ROLLED_BACK";
    case TxState::kUnknown: return "UNKNOWN";
  }
  switch (static_cast<uint8_t>(state)) {  // Ignite's other ordinals
    case 0: return "ACTIVE";
    case 1: return "PREPARING";
    case 3: return "MARKED_ROLLBACK";
    case 4: return "COMMITTING";
    case 6: return "ROLLING_BACK";
    case 9: return "SUSPENDED";
    default: return "INVALID";
  }
}

const char* EntryOpName(EntryOp op) {
  switch (op) {
    case EntryOp::kCreate: return "CREATE";
    case EntryOp::kUpdate: return "UPDATE";
    case EntryOp::kDelete: return "DELETE";
  }
  switch (static_cast<uint8_t>(op)) {  // Ignite's other ordinals
    case 0: return "READ";
    case 4: return "TRANSFORM";
    case 5: return "RELOAD";
    case 6: return "NOOP";
    default: return "INVALID";
  }
}

void EncodePayload(const HeaderRecord& r, std::string* out) {
  PutFixed64(out, r.magic);
  PutFixed32(out, r.version);
  PutFixed64(out, r.segment);
  PutUuid(out, r.node_id);
  PutFixed16(out, r.node_order);
}

void EncodePayload(const TxRecord& r, std::string* out) {
  PutFixed8(out, static_cast<uint8_t>(r.state));
  PutFixed8(out, r.flags);
  PutTxId(out, r.xid);
  PutFixed32(out, r.topology_version);
  PutFixed64(out, r.timestamp);
  PutFixed16(out, static_cast<uint16_t>(r.participants.size()));
  for (const auto& p : r.participants) {
    PutFixed16(out, p.primary);
    PutFixed16(out, static_cast<uint16_t>(p.backups.size()));
    for (uint16_t b : p.backups) PutFixed16(out, b);
  }
  PutFixed16(out, static_cast<uint16_t>(r.counters.size()));
  for (const auto& c : r.counters) {
    PutFixed32(out, c.cache_id);
    PutFixed32(out, c.partition);
    PutFixed64(out, c.start);
    PutFixed64(out, c.delta);
  }
}

void EncodePayload(const DataRecord& r, std::string* out) {
  PutFixed64(out, r.timestamp);
  PutFixed32(out, static_cast<uint32_t>(r.entries.size()));
  for (const auto& e : r.entries) {
    PutFixed32(out, e.cache_id);
    PutFixed32(out, e.partition);
    PutFixed64(out, e.counter);
    PutFixed8(out, static_cast<uint8_t>(e.op));
    PutFixed8(out, e.flags);
    PutTxId(out, e.xid);
    PutTxId(out, e.write_version);
    PutBytes(out, e.key);
    PutBytes(out, e.value);
  }
}

void EncodePayload(const RollbackRecord& r, std::string* out) {
  PutFixed32(out, r.cache_id);
  PutFixed32(out, r.partition);
  PutFixed64(out, r.start);
  PutFixed64(out, r.range);
}

void EncodePayload(const ClusterSnapshotRecord& r, std::string* out) {
  PutFixed64(out, r.timestamp);
  PutBytes(out, r.name);
}

void EncodePayload(const CutStartRecord& r, std::string* out) {
  PutUuid(out, r.cut_id);
  PutFixed32(out, r.topology_version);
  PutFixed64(out, r.timestamp);
}

void EncodePayload(const CutFinishRecord& r, std::string* out) {
  PutUuid(out, r.cut_id);
  PutFixed64(out, r.timestamp);
  PutFixed32(out, static_cast<uint32_t>(r.before.size()));
  for (const auto& id : r.before) PutTxId(out, id);
  PutFixed32(out, static_cast<uint32_t>(r.after.size()));
  for (const auto& id : r.after) PutTxId(out, id);
}

Status DecodePayload(uint8_t type, std::string_view payload, AnyRecord* out) {
  out->type = type;
  Decoder d(payload);
  Status s;
  switch (static_cast<RecordType>(type)) {
    case RecordType::kHeader: s = DecodeHeader(&d, &out->header); break;
    case RecordType::kTx: s = DecodeTx(&d, &out->tx); break;
    case RecordType::kData: s = DecodeData(&d, &out->data); break;
    case RecordType::kRollback: {
      auto& r = out->rollback;
      if (!(d.GetFixed32(&r.cache_id) && d.GetFixed32(&r.partition) && d.GetFixed64(&r.start) &&
            d.GetFixed64(&r.range))) {
        s = Malformed(type, d, "short");
      } else if (!SoundRange(r.start, r.range)) {
        s = Malformed(type, d, "counter range out of bounds");
      }
      break;
    }
    case RecordType::kClusterSnapshot:
      if (!(d.GetFixed64(&out->snapshot.timestamp) && d.GetBytes(&out->snapshot.name))) {
        s = Malformed(type, d, "short");
      } else if (!SoundSnapshotName(out->snapshot.name)) {
        s = Malformed(type, d, "snapshot name not 1 to 255 bytes, or with '/' or NUL, or . or ..");
      }
      break;
    case RecordType::kCutStart: {
      auto& r = out->cut_start;
      if (!(GetUuid(&d, &r.cut_id) && d.GetFixed32(&r.topology_version) && d.GetFixed64(&r.timestamp))) {
        s = Malformed(type, d, "short");
      }
      break;
    }
    case RecordType::kCutFinish: {
      auto& r = out->cut_finish;
      if (!(GetUuid(&d, &r.cut_id) && d.GetFixed64(&r.timestamp) && GetTxIdList(&d, &r.before) &&
            GetTxIdList(&d, &r.after))) {
        s = Malformed(type, d, "short");
      }
      break;
    }
    case RecordType::kSwitchSegment: break;
    default: return Status::Ok();  // unknown types are shown, never decoded
  }
  if (!s.ok()) return s;
  if (!d.done()) return Malformed(type, d, "trailing bytes");
  return Status::Ok();
}

uint32_t TxView::ParticipantNodeCount(bool* every_other) const {
  std::array<uint16_t, 64> seen;  // only seen[0, n) is read: not zeroed, as this runs per commit
  uint32_t n = 0;
  *every_other = false;
  ForEachParticipantNode([&](uint16_t id) {
    if (IsIgnite(format) && id == ignite::kAllOtherNodes) {
      *every_other = true;
    } else if (n < seen.size() && std::find(seen.begin(), seen.begin() + n, id) == seen.begin() + n) {
      seen[n++] = id;
    }
  });
  return n;
}

}  // namespace wal
