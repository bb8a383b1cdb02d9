#include "tools/record_format.h"

#include <array>
#include <cstdlib>
#include <ctime>
#include <iterator>

#include <xxhash.h>

#include "libwal/ignite_format.h"
#include "libwal/segment_codec.h"
#include "tools/dump_ignite.h"
#include "tools/escape.h"
#include "tools/record_put.h"
#include "tools/time_target.h"

namespace tools {

using wal::AnyRecord;
using wal::RecordType;

void PutEntryHead(fmt::memory_buffer* out, int64_t cache, const std::string* name, uint64_t partition, uint64_t counter,
                  wal::EntryOp op) {
  PutStr(out, " [cache ");
  PutI(out, cache);
  if (name != nullptr) {
    PutStr(out, " (");
    PutStr(out, *name);
    out->push_back(')');
  }
  PutStr(out, " part ");
  PutU(out, partition);
  PutStr(out, " cntr ");
  PutU(out, counter);
  out->push_back(' ');
  PutStr(out, wal::EntryOpName(op));
  PutStr(out, " key ");
}

void PutTxId(fmt::memory_buffer* out, const wal::TxId& id) {
  PutU(out, id.topology_version);
  out->push_back('.');
  PutU(out, id.DataCenterId() == 0 ? id.node_order : id.NodeOrder());
  out->push_back('.');
  PutU(out, id.order);
  if (id.DataCenterId() != 0) {
    out->push_back('@');
    PutU(out, id.DataCenterId());
  }
}

void PutParticipantsText(fmt::memory_buffer* out, const std::vector<wal::Participant>& participants,
                         std::string_view others) {
  PutStr(out, " participants");
  for (const auto& p : participants) {
    out->push_back(' ');
    PutU(out, p.primary);
    out->push_back('[');
    for (size_t i = 0; i < p.backups.size(); ++i) {
      if (i) out->push_back(',');
      if (!others.empty() && p.backups[i] == wal::ignite::kAllOtherNodes) {
        PutStr(out, others);
      } else {
        PutU(out, p.backups[i]);
      }
    }
    out->push_back(']');
  }
}

namespace {

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

size_t ShownEntries(const wal::DataRecord& d, const RecordFormat& f) {
  return f.entries == nullptr ? d.entries.size() : f.entries->size();
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

void HeaderText(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  Put(out, " magic 0x{:016x} version {} segment {} node {} order {}", a.header.magic, a.header.version,
      a.header.segment, a.header.node_id.ToString(), a.header.node_order);
}

void HeaderJson(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  Put(out,
      ",\"magic\":\"0x{:016x}\",\"version\":{},\"segment_index\":{},\"node_id\":\"{}\","
      "\"node_order\":{}",
      a.header.magic, a.header.version, a.header.segment, a.header.node_id.ToString(), a.header.node_order);
}

void TxText(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  const auto& t = a.tx;
  PutStr(out, " tx ");
  PutTxId(out, t.xid);
  out->push_back(' ');
  PutStr(out, wal::TxStateName(t.state));
  PutStr(out, " topver ");
  PutU(out, t.topology_version);
  TxFlagsText(out, t.flags);
  PutStr(out, " ts ");
  AppendTimestamp(out, t.timestamp);
  PutParticipantsText(out, t.participants);
  if (!t.counters.empty()) {
    PutStr(out, " counters");
    for (const auto& c : t.counters) {
      Put(out, " {}/{}:({},{}]", c.cache_id, c.partition, c.start, c.start + c.delta);
    }
  }
}

void TxJson(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  const auto& t = a.tx;
  PutStr(out, ",\"tx\":\"");
  PutTxId(out, t.xid);
  PutStr(out, "\",\"state\":\"");
  PutStr(out, wal::TxStateName(t.state));
  PutStr(out, "\",\"topology_version\":");
  PutU(out, t.topology_version);
  PutStr(out, (t.flags & wal::kTxFlagRecoveryFinish) != 0 ? ",\"recovery_finish\":true" : ",\"recovery_finish\":false");
  PutStr(out, (t.flags & wal::kTxFlagOnePhase) != 0 ? ",\"one_phase\":true" : ",\"one_phase\":false");
  PutStr(out, ",\"timestamp\":");
  PutU(out, t.timestamp);
  PutStr(out, ",\"participants\":[");
  for (size_t i = 0; i < t.participants.size(); ++i) {
    const auto& p = t.participants[i];
    PutStr(out, i ? ",{\"primary\":" : "{\"primary\":");
    PutU(out, p.primary);
    PutStr(out, ",\"backups\":[");
    for (size_t j = 0; j < p.backups.size(); ++j) {
      if (j) out->push_back(',');
      PutU(out, p.backups[j]);
    }
    PutStr(out, "]}");
  }
  PutStr(out, "],\"counters\":[");
  for (size_t i = 0; i < t.counters.size(); ++i) {
    const auto& c = t.counters[i];
    Put(out, "{}{{\"cache\":{},\"partition\":{},\"start\":{},\"range\":{}}}", i ? "," : "", c.cache_id, c.partition,
        c.start, c.delta);
  }
  PutStr(out, "]");
}

void DataText(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  const auto& d = a.data;
  PutStr(out, " ts ");
  AppendTimestamp(out, d.timestamp);
  PutStr(out, " entries ");
  if (f.entries != nullptr) {
    PutU(out, ShownEntries(d, f));
    PutStr(out, " of ");
  }
  PutU(out, d.entries.size());
  out->push_back(':');
  ForEachEntry(d, f, [&](const wal::DataEntry& e) {
    PutEntryHead(out, e.cache_id, f.CacheName(e.cache_id), e.partition, e.counter, e.op);
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
}

void DataJson(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  const auto& d = a.data;
  PutStr(out, ",\"timestamp\":");
  PutU(out, d.timestamp);
  PutStr(out, ",\"entry_count\":");
  PutU(out, d.entries.size());
  PutStr(out, ",\"entries\":[");
  bool first = true;
  ForEachEntry(d, f, [&](const wal::DataEntry& e) {
    PutStr(out, first ? "{\"cache\":" : ",{\"cache\":");
    PutU(out, e.cache_id);
    if (const std::string* name = f.CacheName(e.cache_id)) {
      PutStr(out, ",\"cache_name\":");
      AppendJsonString(out, *name);
    }
    PutStr(out, ",\"partition\":");
    PutU(out, e.partition);
    PutStr(out, ",\"counter\":");
    PutU(out, e.counter);
    PutStr(out, ",\"op\":\"");
    PutStr(out, wal::EntryOpName(e.op));
    PutStr(out, "\",\"key\":");
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
    PutStr(out, (e.flags & wal::kEntryFlagPrimary) != 0 ? "\",\"primary\":true}" : "\",\"primary\":false}");
  });
  PutStr(out, "]");
}

void RollbackText(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  const std::string* name = f.CacheName(a.rollback.cache_id);
  Put(out, " cache {}{} part {} start {} range {}", a.rollback.cache_id, name != nullptr ? " (" + *name + ")" : "",
      a.rollback.partition, a.rollback.start, a.rollback.range);
}

void RollbackJson(const AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out) {
  Put(out, ",\"cache\":{}", a.rollback.cache_id);
  if (const std::string* name = f.CacheName(a.rollback.cache_id)) {
    PutStr(out, ",\"cache_name\":");
    AppendJsonString(out, *name);
  }
  Put(out, ",\"partition\":{},\"start\":{},\"range\":{}", a.rollback.partition, a.rollback.start, a.rollback.range);
}

void SnapshotText(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  PutStr(out, " name ");
  AppendQuoted(out, a.snapshot.name);
  PutStr(out, " ts ");
  AppendTimestamp(out, a.snapshot.timestamp);
}

void SnapshotJson(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  PutStr(out, ",\"name\":");
  AppendJsonString(out, a.snapshot.name);
  Put(out, ",\"timestamp\":{}", a.snapshot.timestamp);
}

void CutStartText(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  Put(out, " cut {} topver {} ts ", a.cut_start.cut_id.ToString(), a.cut_start.topology_version);
  AppendTimestamp(out, a.cut_start.timestamp);
}

void CutStartJson(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  Put(out, ",\"cut\":\"{}\",\"topology_version\":{},\"timestamp\":{}", a.cut_start.cut_id.ToString(),
      a.cut_start.topology_version, a.cut_start.timestamp);
}

void CutFinishText(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
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
}

void CutFinishJson(const AnyRecord& a, const RecordFormat& /*f*/, fmt::memory_buffer* out) {
  Put(out, ",\"cut\":\"{}\",\"timestamp\":{},\"before\":", a.cut_finish.cut_id.ToString(), a.cut_finish.timestamp);
  JsonTxIdList(out, a.cut_finish.before);
  PutStr(out, ",\"after\":");
  JsonTxIdList(out, a.cut_finish.after);
}

void SwitchText(const AnyRecord&, const RecordFormat&, fmt::memory_buffer*) {}

void SwitchJson(const AnyRecord&, const RecordFormat&, fmt::memory_buffer*) {}

// The describers of `walcut dump`, one table keyed by (format, record type id): a text and
// a JSON describer per row (pg_waldump's RmgrDescTable). walcut's records first; then
// Apache Ignite's, each row only where Ignite's record differs from walcut's of that id (a
// null describer: walcut's). A format that adds record types adds rows; a type with no
// row in its format is printed by name (or number) and size only.
using Describer = void (*)(const AnyRecord&, const RecordFormat&, fmt::memory_buffer*);
struct RecordDesc {
  bool ignite;  // a row of Ignite's segments; false: of walcut's
  uint8_t type;
  Describer text;
  Describer json;
};

constexpr RecordDesc kDescs[] = {
    {false, 4, HeaderText, HeaderJson},
    {false, 0, TxText, TxJson},
    {false, 70, DataText, DataJson},
    {false, 57, RollbackText, RollbackJson},
    {false, 75, SnapshotText, SnapshotJson},
    {false, 76, CutStartText, CutStartJson},
    {false, 77, CutFinishText, CutFinishJson},
    {false, 40, SwitchText, SwitchJson},
    // Apache Ignite: versions for transaction ids, cache objects, group ids, ms timestamps.
    {true, 4, ignite_rows::HeaderText, ignite_rows::HeaderJson},
    {true, 0, ignite_rows::TxText, ignite_rows::TxJson},
    {true, 70, ignite_rows::DataText, ignite_rows::DataJson},
    {true, 57, ignite_rows::RollbackText, ignite_rows::RollbackJson},
    {true, 75, ignite_rows::SnapshotText, ignite_rows::SnapshotJson},
    {true, 76, ignite_rows::StartText, ignite_rows::StartJson},
    {true, 77, ignite_rows::FinishText, ignite_rows::FinishJson},
    {true, 40, nullptr, nullptr},  // SWITCH_SEGMENT_RECORD: nothing beyond its name, as walcut's
    {true, 3, ignite_rows::CheckpointText, ignite_rows::CheckpointJson},
};

// walcut's rows come first: Ignite's are completed from them.
constexpr bool WalcutRowsFirst() {
  bool ignite = false;
  for (const auto& d : kDescs) {
    if (ignite && !d.ignite) return false;
    ignite = ignite || d.ignite;
  }
  return true;
}
static_assert(WalcutRowsFirst());

// The row of a record, by a table indexed by (format, type id), Ignite's rows completed
// from walcut's; nullptr where the table has none.
const RecordDesc* DescOf(const wal::Record& r) {
  static const auto* const rows = [] {
    static std::array<RecordDesc, 512> t{};
    for (const auto& d : kDescs) {
      RecordDesc& row = t[(d.ignite ? 256u : 0u) + d.type];
      row = d;
      if (row.text == nullptr) row.text = t[d.type].text;
      if (row.json == nullptr) row.json = t[d.type].json;
    }
    return &t;
  }();
  const RecordDesc& row = (*rows)[(wal::IsIgnite(r.format) ? 256u : 0u) + r.type];
  return row.text != nullptr ? &row : nullptr;
}

// The type's name in its segment's format, or nullptr.
const char* TypeNameOf(const wal::Record& r) {
  return wal::IsIgnite(r.format) ? wal::CodecFor(r.format).TypeName(r.type)
                                 : (wal::IsKnownRecordType(r.type) ? wal::RecordTypeName(r.type) : nullptr);
}

}  // namespace

void AppendTimestamp(fmt::memory_buffer* out, uint64_t ns) {
  PutU(out, ns / 1000000000u);
  char frac[10];
  frac[0] = '.';
  uint64_t r = ns % 1000000000u;
  for (int i = 9; i >= 1; --i) {
    frac[i] = static_cast<char>('0' + r % 10);
    r /= 10;
  }
  AppendRaw(out, frac, 10);
}

namespace {
bool local_times = false;  // set once by the command, before it prints
}  // namespace

void SetLocalTimes(bool local) { local_times = local; }

void AppendTime(fmt::memory_buffer* out, uint64_t ns) {
  if (ns == 0) {
    out->push_back('-');
  } else if (ns < kWallClockFrom) {
    AppendTimestamp(out, ns);
  } else if (local_times) {
    const auto secs = static_cast<time_t>(ns / 1'000'000'000);
    struct tm tm {};
    localtime_r(&secs, &tm);
    const long offset = tm.tm_gmtoff / 60;  // minutes east of UTC
    const uint64_t frac = ns % 1'000'000'000;
    fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                   tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (frac % 1'000'000 == 0) {
      fmt::format_to(std::back_inserter(*out), ".{:03}", frac / 1'000'000);
    } else {
      fmt::format_to(std::back_inserter(*out), ".{:09}", frac);
    }
    fmt::format_to(std::back_inserter(*out), "{}{:02}:{:02}", offset < 0 ? '-' : '+', std::labs(offset) / 60,
                   std::labs(offset) % 60);
  } else {
    // Records come many to a second: the date and time of day are formatted once per second
    // (per thread: parts of a WAL are printed side by side), the fraction each time.
    thread_local uint64_t cached_secs = UINT64_MAX;
    thread_local std::string cached;  // "YYYY-MM-DDTHH:MM:SS"
    const uint64_t secs = ns / 1'000'000'000;
    if (secs != cached_secs) {
      cached = FormatIsoTime(secs * 1'000'000'000);  // ...ss.000000000Z
      cached.resize(cached.rfind('.'));
      cached_secs = secs;
    }
    AppendRaw(out, cached.data(), cached.size());
    uint64_t frac = ns % 1'000'000'000;
    int digits = 9;
    if (frac % 1'000'000 == 0) {
      frac /= 1'000'000;
      digits = 3;
    }
    char tail[11];
    tail[0] = '.';
    for (int i = digits; i >= 1; --i) {
      tail[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    tail[digits + 1] = 'Z';
    AppendRaw(out, tail, static_cast<size_t>(digits) + 2);
  }
}

void AppendRecordText(std::string_view node, const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out) {
  PutStr(out, node);
  out->push_back(' ');
  PutU(out, r.ptr.segment);
  out->push_back(':');
  PutU(out, r.ptr.offset);
  out->push_back(' ');
  if (const char* name = TypeNameOf(r)) {
    PutStr(out, name);
  } else {
    Put(out, "UNKNOWN({})", r.type);
  }
  PutStr(out, " size ");
  PutU(out, r.size);
  if (r.format == wal::SegmentFormat::kIgniteCompacted) {
    PutStr(out, " at ");
    PutU(out, r.file_offset);
  }
  if (const RecordDesc* d = DescOf(r)) d->text(r.decoded, f, out);
  out->push_back('\n');
}

void AppendRecordJson(std::string_view node, const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out) {
  PutStr(out, "{\"node\":");
  AppendJsonString(out, node);
  PutStr(out, ",\"segment\":");
  PutU(out, r.ptr.segment);
  PutStr(out, ",\"offset\":");
  PutU(out, r.ptr.offset);
  PutStr(out, ",\"pointer\":\"");
  PutU(out, r.ptr.segment);
  out->push_back(':');
  PutU(out, r.ptr.offset);
  PutStr(out, "\",\"type\":\"");
  const char* name = TypeNameOf(r);
  PutStr(out, name != nullptr ? name : "UNKNOWN");
  PutStr(out, "\",\"type_id\":");
  PutU(out, r.type);
  PutStr(out, ",\"size\":");
  PutU(out, r.size);
  if (wal::IsIgnite(r.format)) {
    PutStr(out, ",\"format\":\"");
    PutStr(out, wal::SegmentFormatName(r.format));
    PutStr(out, "\",\"file_offset\":");
    PutU(out, r.file_offset);
  }
  if (const RecordDesc* d = DescOf(r)) d->json(r.decoded, f, out);
  PutStr(out, "}\n");
}

}  // namespace tools
