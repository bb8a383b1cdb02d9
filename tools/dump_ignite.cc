#include "tools/dump_ignite.h"

#include <iterator>

#include <xxhash.h>

#include "libwal/cache_object.h"
#include "libwal/ignite_format.h"
#include "libwal/segment_codec.h"
#include "tools/escape.h"
#include "tools/record_format.h"
#include "tools/record_put.h"

namespace tools {
namespace ignite_rows {
namespace {

using wal::AnyRecord;

// Ignite's timestamps are milliseconds: printed as Ignite prints them.
void PutMillis(fmt::memory_buffer* out, uint64_t ns) { PutU(out, ns / 1000000); }

void PutVersionText(fmt::memory_buffer* out, const wal::TxId& id) {
  if (id.IsNull()) {
    PutStr(out, "null");
  } else {
    PutTxId(out, id);
  }
}

void PutTxIdList(fmt::memory_buffer* out, const std::vector<wal::TxId>& ids, bool json) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (json) {
      if (i) out->push_back(',');
      PutIgniteVersionJson(out, ids[i]);
    } else {
      if (i) out->push_back(' ');
      PutVersionText(out, ids[i]);
    }
  }
}

// A key or value: its text (cache_object.h), hidden, or the XXH3 of its bytes.
void ObjectText(fmt::memory_buffer* out, int8_t type, std::string_view bytes, ValuesMode mode,
                const wal::BinaryTypes* types) {
  switch (mode) {
    case ValuesMode::kShow: AppendQuoted(out, wal::CacheObjectText(type, bytes, types)); break;
    case ValuesMode::kHide: PutStr(out, "<hidden>"); break;
    case ValuesMode::kHash: Put(out, "xxh3:{:016x}", XXH3_64bits(bytes.data(), bytes.size())); break;
  }
}

void ObjectJson(fmt::memory_buffer* out, std::string_view name, int8_t type, std::string_view bytes, bool null,
                ValuesMode mode, const wal::BinaryTypes* types) {
  Put(out, ",\"{}\":", name);
  if (null) {
    Put(out, "null,\"{}_type\":null", name);
    return;
  }
  switch (mode) {
    case ValuesMode::kShow: AppendJsonString(out, wal::CacheObjectText(type, bytes, types)); break;
    case ValuesMode::kHide: PutStr(out, "null"); break;
    case ValuesMode::kHash: Put(out, "\"xxh3:{:016x}\"", XXH3_64bits(bytes.data(), bytes.size())); break;
  }
  Put(out, ",\"{}_type\":{},\"{}_class\":", name, type, name);
  AppendJsonString(out, wal::CacheObjectClass(type, bytes));
  if (mode == ValuesMode::kShow) Put(out, ",\"{}_hex\":\"{}\"", name, wal::Hex(bytes));
}

}  // namespace

void HeaderText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, " magic 0x{:016x} version {} segment {}", a.header.magic, a.header.version, a.header.segment);
}

void HeaderJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, ",\"magic\":\"0x{:016x}\",\"version\":{},\"segment_index\":{}", a.header.magic, a.header.version,
      a.header.segment);
}

void TxText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& t = a.tx;
  PutStr(out, " tx ");
  PutVersionText(out, t.xid);
  out->push_back(' ');
  PutStr(out, wal::TxStateName(t.state));
  PutStr(out, " write ");
  PutVersionText(out, t.write_version);
  PutStr(out, " ts ");
  AppendTime(out, t.timestamp);
  PutParticipantsText(out, t.participants, "others");
}

void TxJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& t = a.tx;
  PutStr(out, ",\"tx\":");
  PutIgniteVersionJson(out, t.xid);
  PutStr(out, ",\"write_version\":");
  PutIgniteVersionJson(out, t.write_version);
  Put(out, ",\"state\":\"{}\",\"timestamp\":", wal::TxStateName(t.state));
  PutMillis(out, t.timestamp);
  PutStr(out, ",\"participants\":[");
  for (size_t i = 0; i < t.participants.size(); ++i) {
    const auto& p = t.participants[i];
    Put(out, "{}{{\"primary\":{},\"backups\":[", i ? "," : "", p.primary);
    for (size_t j = 0; j < p.backups.size(); ++j) Put(out, "{}{}", j ? "," : "", p.backups[j]);
    PutStr(out, "]}");
  }
  PutStr(out, "],\"counters\":[]");
}

void DataText(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  const auto& d = a.data;
  PutStr(out, " ts ");
  AppendTime(out, d.timestamp);
  PutStr(out, " entries ");
  if (f.entries != nullptr) Put(out, "{} of ", f.entries->size());
  PutU(out, d.entries.size());
  out->push_back(':');
  ForEachEntry(d, f, [&](const wal::DataEntry& e) {
    PutEntryHead(out, static_cast<int32_t>(e.cache_id), f.CacheName(e.cache_id), e.partition, e.counter, e.op);
    ObjectText(out, e.key_type, e.key, ValuesMode::kShow, f.binary_types);
    if (!e.value_null) {
      PutStr(out, " value ");
      ObjectText(out, e.value_type, e.value, f.values, f.binary_types);
    }
    PutStr(out, " tx ");
    PutVersionText(out, e.xid);
    PutStr(out, " ver ");
    PutVersionText(out, e.write_version);
    if (e.expire_time != 0) Put(out, " expire {}", e.expire_time);
    if (e.flags & wal::kEntryFlagPrimary) PutStr(out, " primary");
    if (e.flags & wal::kEntryFlagPreload) PutStr(out, " preload");
    if (e.flags & wal::kEntryFlagFromStore) PutStr(out, " from-store");
    PutStr(out, "]");
  });
}

void DataJson(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  const auto& d = a.data;
  PutStr(out, ",\"timestamp\":");
  PutMillis(out, d.timestamp);
  Put(out, ",\"entry_count\":{},\"entries\":[", d.entries.size());
  bool first = true;
  ForEachEntry(d, f, [&](const wal::DataEntry& e) {
    Put(out, "{}{{\"cache\":{}", first ? "" : ",", static_cast<int32_t>(e.cache_id));
    if (const std::string* name = f.CacheName(e.cache_id)) {
      PutStr(out, ",\"cache_name\":");
      AppendJsonString(out, *name);
    }
    Put(out, ",\"partition\":{},\"counter\":{},\"op\":\"{}\"", e.partition, e.counter, wal::EntryOpName(e.op));
    first = false;
    ObjectJson(out, "key", e.key_type, e.key, false, ValuesMode::kShow, f.binary_types);
    ObjectJson(out, "value", e.value_type, e.value, e.value_null, f.values, f.binary_types);
    PutStr(out, ",\"tx\":");
    PutIgniteVersionJson(out, e.xid);
    PutStr(out, ",\"write_version\":");
    PutIgniteVersionJson(out, e.write_version);
    Put(out, ",\"expire_time\":{},\"flags\":{},\"primary\":{}}}", e.expire_time, e.flags,
        (e.flags & wal::kEntryFlagPrimary) != 0);
  });
  PutStr(out, "]");
}

void RollbackText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, " group {} part {} start {} range {}", static_cast<int32_t>(a.rollback.cache_id), a.rollback.partition,
      a.rollback.start, a.rollback.range);
}

void RollbackJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, ",\"cache\":{},\"partition\":{},\"start\":{},\"range\":{}", static_cast<int32_t>(a.rollback.cache_id),
      a.rollback.partition, a.rollback.start, a.rollback.range);
}

void SnapshotText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  PutStr(out, " name ");
  AppendQuoted(out, a.snapshot.name);
}

void SnapshotJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  PutStr(out, ",\"name\":");
  AppendJsonString(out, a.snapshot.name);
}

void StartText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, " cut {}", a.cut_start.cut_id.ToString());
}

void StartJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  Put(out, ",\"cut\":\"{}\"", a.cut_start.cut_id.ToString());
}

void FinishText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& c = a.cut_finish;
  Put(out, " cut {} before {} [", c.cut_id.ToString(), c.before.size());
  PutTxIdList(out, c.before, false);
  Put(out, "] after {} [", c.after.size());
  PutTxIdList(out, c.after, false);
  PutStr(out, "]");
}

void FinishJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& c = a.cut_finish;
  Put(out, ",\"cut\":\"{}\",\"before\":[", c.cut_id.ToString());
  PutTxIdList(out, c.before, true);
  PutStr(out, "],\"after\":[");
  PutTxIdList(out, c.after, true);
  PutStr(out, "]");
}

void CheckpointText(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& c = a.checkpoint;
  Put(out, " id {}", c.id.ToString());
  if (c.has_mark) Put(out, " mark {}:{} len {}", c.mark.segment, c.mark.offset, c.mark_length);
  size_t parts = 0;
  for (const auto& g : c.groups) parts += g.partitions.size();
  Put(out, " groups {} partitions {}{}", c.groups.size(), parts, c.end ? " end" : "");
}

void CheckpointJson(const AnyRecord& a, const RecordFormat&, fmt::memory_buffer* out) {
  const auto& c = a.checkpoint;
  Put(out, ",\"id\":\"{}\",\"end\":{},\"mark\":", c.id.ToString(), c.end);
  if (c.has_mark) {
    Put(out, "{{\"segment\":{},\"offset\":{},\"length\":{}}}", c.mark.segment, c.mark.offset, c.mark_length);
  } else {
    PutStr(out, "null");
  }
  PutStr(out, ",\"groups\":[");
  for (size_t i = 0; i < c.groups.size(); ++i) {
    const auto& g = c.groups[i];
    Put(out, "{}{{\"group_id\":{},\"partitions\":[", i ? "," : "", g.group_id);
    for (size_t j = 0; j < g.partitions.size(); ++j) {
      const auto& p = g.partitions[j];
      Put(out, "{}{{\"partition\":{},\"size\":{},\"counter\":{},\"state\":{}}}", j ? "," : "", p.partition, p.size,
          p.counter, p.state);
    }
    PutStr(out, "]}");
  }
  PutStr(out, "]");
}

}  // namespace ignite_rows

void PutIgniteVersionJson(fmt::memory_buffer* out, const wal::TxId& id) {
  if (id.IsNull()) {
    PutStr(out, "null");
    return;
  }
  out->push_back('"');
  PutTxId(out, id);
  out->push_back('"');
}

}  // namespace tools
