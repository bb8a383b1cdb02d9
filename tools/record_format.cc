#include "tools/record_format.h"

#include <iterator>

#include <xxhash.h>

#include "tools/escape.h"

namespace tools {
namespace {

using wal::AnyRecord;
using wal::RecordType;

template <typename... Args>
void Put(fmt::memory_buffer* out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), f, std::forward<Args>(args)...);
}

void PutStr(fmt::memory_buffer* out, std::string_view s) { out->append(s.data(), s.data() + s.size()); }

void PutTxId(fmt::memory_buffer* out, const wal::TxId& id) {
  Put(out, "{}.{}.{}", id.topology_version, id.node_order, id.order);
}

void PutValueText(fmt::memory_buffer* out, std::string_view v, ValuesMode mode) {
  switch (mode) {
    case ValuesMode::kShow: AppendQuoted(out, v); break;
    case ValuesMode::kHide: PutStr(out, "<hidden>"); break;
    case ValuesMode::kHash: Put(out, "xxh3:{:016x}", XXH3_64bits(v.data(), v.size())); break;
  }
}

void PutValueJson(fmt::memory_buffer* out, std::string_view v, ValuesMode mode) {
  switch (mode) {
    case ValuesMode::kShow: AppendJsonString(out, v); break;
    case ValuesMode::kHide: PutStr(out, "null"); break;
    case ValuesMode::kHash: Put(out, "\"xxh3:{:016x}\"", XXH3_64bits(v.data(), v.size())); break;
  }
}

void TxFlagsText(fmt::memory_buffer* out, uint8_t flags) {
  if (flags & wal::kTxFlagRecoveryFinish) PutStr(out, " RECOVERY_FINISH");
  if (flags & wal::kTxFlagOnePhase) PutStr(out, " 1PC");
}

template <typename Fn>
void ForEachEntry(const wal::DataRecord& d, const RecordFormat& f, Fn fn) {
  if (f.entries == nullptr) {
    for (const auto& e : d.entries) fn(e);
  } else {
    for (uint32_t i : *f.entries) fn(d.entries[i]);
  }
}

size_t ShownEntries(const wal::DataRecord& d, const RecordFormat& f) {
  return f.entries == nullptr ? d.entries.size() : f.entries->size();
}

void TextDetails(const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out) {
  const AnyRecord& a = r.decoded;
  switch (static_cast<RecordType>(r.type)) {
    case RecordType::kHeader:
      Put(out, " magic 0x{:016x} version {} segment {} node {} order {}", a.header.magic,
          a.header.version, a.header.segment, a.header.node_id.ToString(), a.header.node_order);
      break;
    case RecordType::kTx: {
      const auto& t = a.tx;
      PutStr(out, " tx ");
      PutTxId(out, t.xid);
      Put(out, " {} topver {}", wal::TxStateName(t.state), t.topology_version);
      TxFlagsText(out, t.flags);
      PutStr(out, " ts ");
      AppendTimestamp(out, t.timestamp);
      PutStr(out, " participants");
      for (const auto& p : t.participants) {
        Put(out, " {}[", p.primary);
        for (size_t i = 0; i < p.backups.size(); ++i) Put(out, "{}{}", i ? "," : "", p.backups[i]);
        PutStr(out, "]");
      }
      break;
    }
    case RecordType::kData: {
      const auto& d = a.data;
      PutStr(out, " ts ");
      AppendTimestamp(out, d.timestamp);
      if (f.entries != nullptr) {
        Put(out, " entries {} of {}:", ShownEntries(d, f), d.entries.size());
      } else {
        Put(out, " entries {}:", d.entries.size());
      }
      ForEachEntry(d, f, [&](const wal::DataEntry& e) {
        Put(out, " [cache {} part {} cntr {} {} key ", e.cache_id, e.partition, e.counter,
            wal::EntryOpName(e.op));
        AppendQuoted(out, e.key);
        if (e.op != wal::EntryOp::kDelete) {
          PutStr(out, " value ");
          PutValueText(out, e.value, f.values);
        }
        PutStr(out, " tx ");
        PutTxId(out, e.xid);
        PutStr(out, " ver ");
        PutTxId(out, e.write_version);
        if (e.flags & wal::kEntryFlagPrimary) PutStr(out, " primary");
        PutStr(out, "]");
      });
      break;
    }
    case RecordType::kRollback:
      Put(out, " cache {} part {} start {} range {}", a.rollback.cache_id, a.rollback.partition,
          a.rollback.start, a.rollback.range);
      break;
    case RecordType::kClusterSnapshot:
      PutStr(out, " name ");
      AppendQuoted(out, a.snapshot.name);
      PutStr(out, " ts ");
      AppendTimestamp(out, a.snapshot.timestamp);
      break;
    case RecordType::kCutStart:
      Put(out, " cut {} topver {} ts ", a.cut_start.cut_id.ToString(),
          a.cut_start.topology_version);
      AppendTimestamp(out, a.cut_start.timestamp);
      break;
    case RecordType::kCutFinish: {
      const auto& c = a.cut_finish;
      Put(out, " cut {} ts ", c.cut_id.ToString());
      AppendTimestamp(out, c.timestamp);
      Put(out, " before {} [", c.before.size());
      for (size_t i = 0; i < c.before.size(); ++i) {
        if (i) PutStr(out, " ");
        PutTxId(out, c.before[i]);
      }
      Put(out, "] after {} [", c.after.size());
      for (size_t i = 0; i < c.after.size(); ++i) {
        if (i) PutStr(out, " ");
        PutTxId(out, c.after[i]);
      }
      PutStr(out, "]");
      break;
    }
    case RecordType::kSwitchSegment:
      break;
  }
}

void JsonTxIdList(fmt::memory_buffer* out, const std::vector<wal::TxId>& ids) {
  PutStr(out, "[");
  for (size_t i = 0; i < ids.size(); ++i) {
    PutStr(out, i ? ",\"" : "\"");
    PutTxId(out, ids[i]);
    PutStr(out, "\"");
  }
  PutStr(out, "]");
}

void JsonDetails(const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out) {
  const AnyRecord& a = r.decoded;
  switch (static_cast<RecordType>(r.type)) {
    case RecordType::kHeader:
      Put(out, ",\"magic\":\"0x{:016x}\",\"version\":{},\"segment_index\":{},\"node_id\":\"{}\","
               "\"node_order\":{}",
          a.header.magic, a.header.version, a.header.segment, a.header.node_id.ToString(),
          a.header.node_order);
      break;
    case RecordType::kTx: {
      const auto& t = a.tx;
      PutStr(out, ",\"tx\":\"");
      PutTxId(out, t.xid);
      Put(out, "\",\"state\":\"{}\",\"topology_version\":{},\"recovery_finish\":{},"
               "\"one_phase\":{},\"timestamp\":{},\"participants\":[",
          wal::TxStateName(t.state), t.topology_version,
          (t.flags & wal::kTxFlagRecoveryFinish) != 0, (t.flags & wal::kTxFlagOnePhase) != 0,
          t.timestamp);
      for (size_t i = 0; i < t.participants.size(); ++i) {
        const auto& p = t.participants[i];
        Put(out, "{}{{\"primary\":{},\"backups\":[", i ? "," : "", p.primary);
        for (size_t j = 0; j < p.backups.size(); ++j) Put(out, "{}{}", j ? "," : "", p.backups[j]);
        PutStr(out, "]}");
      }
      PutStr(out, "]");
      break;
    }
    case RecordType::kData: {
      const auto& d = a.data;
      Put(out, ",\"timestamp\":{},\"entry_count\":{},\"entries\":[", d.timestamp, d.entries.size());
      bool first = true;
      ForEachEntry(d, f, [&](const wal::DataEntry& e) {
        Put(out, "{}{{\"cache\":{},\"partition\":{},\"counter\":{},\"op\":\"{}\",\"key\":",
            first ? "" : ",", e.cache_id, e.partition, e.counter, wal::EntryOpName(e.op));
        first = false;
        AppendJsonString(out, e.key);
        PutStr(out, ",\"value\":");
        if (e.op == wal::EntryOp::kDelete) {
          PutStr(out, "null");
        } else {
          PutValueJson(out, e.value, f.values);
        }
        PutStr(out, ",\"tx\":\"");
        PutTxId(out, e.xid);
        PutStr(out, "\",\"write_version\":\"");
        PutTxId(out, e.write_version);
        Put(out, "\",\"primary\":{}}}", (e.flags & wal::kEntryFlagPrimary) != 0);
      });
      PutStr(out, "]");
      break;
    }
    case RecordType::kRollback:
      Put(out, ",\"cache\":{},\"partition\":{},\"start\":{},\"range\":{}", a.rollback.cache_id,
          a.rollback.partition, a.rollback.start, a.rollback.range);
      break;
    case RecordType::kClusterSnapshot:
      PutStr(out, ",\"name\":");
      AppendJsonString(out, a.snapshot.name);
      Put(out, ",\"timestamp\":{}", a.snapshot.timestamp);
      break;
    case RecordType::kCutStart:
      Put(out, ",\"cut\":\"{}\",\"topology_version\":{},\"timestamp\":{}",
          a.cut_start.cut_id.ToString(), a.cut_start.topology_version, a.cut_start.timestamp);
      break;
    case RecordType::kCutFinish:
      Put(out, ",\"cut\":\"{}\",\"timestamp\":{},\"before\":", a.cut_finish.cut_id.ToString(),
          a.cut_finish.timestamp);
      JsonTxIdList(out, a.cut_finish.before);
      PutStr(out, ",\"after\":");
      JsonTxIdList(out, a.cut_finish.after);
      break;
    case RecordType::kSwitchSegment:
      break;
  }
}

}  // namespace

void AppendTimestamp(fmt::memory_buffer* out, uint64_t ns) {
  Put(out, "{}.{:09}", ns / 1000000000u, ns % 1000000000u);
}

void AppendRecordText(std::string_view node, const wal::Record& r, const RecordFormat& f,
                      fmt::memory_buffer* out) {
  PutStr(out, node);
  Put(out, " {}:{} ", r.ptr.segment, r.ptr.offset);
  if (wal::IsKnownRecordType(r.type)) {
    PutStr(out, wal::RecordTypeName(r.type));
  } else {
    Put(out, "UNKNOWN({})", r.type);
  }
  Put(out, " size {}", r.size);
  if (wal::IsKnownRecordType(r.type)) TextDetails(r, f, out);
  out->push_back('\n');
}

void AppendRecordJson(std::string_view node, const wal::Record& r, const RecordFormat& f,
                      fmt::memory_buffer* out) {
  PutStr(out, "{\"node\":");
  AppendJsonString(out, node);
  Put(out, ",\"segment\":{},\"offset\":{},\"pointer\":\"{}:{}\",\"type\":\"{}\",\"type_id\":{},"
           "\"size\":{}",
      r.ptr.segment, r.ptr.offset, r.ptr.segment, r.ptr.offset,
      wal::IsKnownRecordType(r.type) ? wal::RecordTypeName(r.type) : "UNKNOWN", r.type, r.size);
  if (wal::IsKnownRecordType(r.type)) JsonDetails(r, f, out);
  PutStr(out, "}\n");
}

}  // namespace tools
