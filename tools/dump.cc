#include "tools/dump.h"

#include <algorithm>
#include <memory>

#include "app/dump_reading.h"
#include "app/inputs.h"
#include "libwal/ignite_record.h"
#include "tools/cache_names.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

// A type's name in the table: walcut's, else Ignite's when met in an Ignite segment.
std::string StatsName(const app::DumpTotals& t, size_t id, std::string unknown) {
  const auto type = static_cast<uint8_t>(id);
  if (wal::IsKnownRecordType(type)) return wal::RecordTypeName(type);
  const char* ignite = t.ignite[id] ? wal::IgniteRecordTypeName(type) : nullptr;
  if (ignite != nullptr) return ignite;
  return unknown;
}

// --stats=node|partition|cache: one row per node, partition or cache, and the total.
void PrintStatsBy(const app::DumpTotals& t, size_t nodes, app::StatsBy by, bool json, Sink* out) {
  auto pct = [](uint64_t part, uint64_t whole) {
    return fmt::format("({:.2f})", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  };
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  const char* what = by == app::StatsBy::kNode ? "node" : by == app::StatsBy::kCache ? "cache" : "partition";
  if (by == app::StatsBy::kNode) {
    uint64_t records = 0, bytes = 0;
    for (const auto& [node, n] : t.by_node) {
      records += n.count;
      bytes += n.bytes;
    }
    if (json) {
      JsonWriter j(&b);
      j.BeginObject().Field("schema", 1).Field("by", what).Field("nodes", nodes).Field("segments", t.segments);
      j.Field("records", records).Field("bytes", bytes).Field("torn_tails", t.torn_tails).Field("errors", t.errors);
      j.Key("rows").BeginArray();
      for (const auto& [node, n] : t.by_node) {
        j.BeginObject().Field("node", node).Field("count", n.count).Field("bytes", n.bytes).EndObject();
      }
      j.EndArray().EndObject();
      b.push_back('\n');
    } else {
      fmt::format_to(it, "WAL statistics by node: {} node(s), {} segment(s), {} torn tail(s), {} error(s)\n", nodes,
                     t.segments, t.torn_tails, t.errors);
      fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "Node", "N", "(%)", "Bytes", "(%)");
      fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "----", "-", "---", "-----", "---");
      for (const auto& [node, n] : t.by_node) {
        fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", node, n.count, pct(n.count, records), n.bytes,
                       pct(n.bytes, bytes));
      }
      fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "Total", records, "(100.00)", bytes, "(100.00)");
    }
    out->Write(std::string_view(b.data(), b.size()));
    return;
  }
  // By partition, or summed by cache.
  std::map<std::pair<uint32_t, uint32_t>, app::PartitionCount> rows;
  std::map<uint32_t, uint64_t> partitions;  // per cache, with --stats=cache
  for (const auto& [key, p] : t.by_partition) {
    const auto row = by == app::StatsBy::kCache ? std::make_pair(key.first, 0u) : key;
    auto& r = rows[row];
    r.entries += p.entries;
    r.bytes += p.bytes;
    r.rollbacks += p.rollbacks;
    ++partitions[key.first];
  }
  app::PartitionCount total;
  for (const auto& [key, r] : rows) {
    total.entries += r.entries;
    total.bytes += r.bytes;
    total.rollbacks += r.rollbacks;
  }
  const bool cache = by == app::StatsBy::kCache;
  if (json) {
    JsonWriter j(&b);
    j.BeginObject().Field("schema", 1).Field("by", what).Field("nodes", nodes).Field("segments", t.segments);
    j.Field("partitions", t.by_partition.size()).Field("entries", total.entries).Field("bytes", total.bytes);
    j.Field("rollbacks", total.rollbacks)
        .Field("torn_tails", t.torn_tails)
        .Field("errors", t.errors)
        .Key("rows")
        .BeginArray();
    for (const auto& [key, r] : rows) {
      j.BeginObject().Field("cache", key.first);
      if (cache) {
        j.Field("partitions", partitions[key.first]);
      } else {
        j.Field("partition", key.second);
      }
      j.Field("entries", r.entries).Field("bytes", r.bytes).Field("rollbacks", r.rollbacks).EndObject();
    }
    j.EndArray().EndObject();
    b.push_back('\n');
  } else {
    fmt::format_to(it, "WAL statistics by {}: {} node(s), {} segment(s), {} torn tail(s), {} error(s)\n", what, nodes,
                   t.segments, t.torn_tails, t.errors);
    fmt::format_to(it, "{:<12} {:>10} {:>12} {:>8} {:>14} {:>8} {:>10}\n", "Cache", cache ? "Partitions" : "Partition",
                   "Entries", "(%)", "Bytes", "(%)", "Rollbacks");
    fmt::format_to(it, "{:<12} {:>10} {:>12} {:>8} {:>14} {:>8} {:>10}\n", "-----", cache ? "----------" : "---------",
                   "-------", "---", "-----", "---", "---------");
    for (const auto& [key, r] : rows) {
      fmt::format_to(it, "{:<12} {:>10} {:>12} {:>8} {:>14} {:>8} {:>10}\n", key.first,
                     cache ? partitions[key.first] : key.second, r.entries, pct(r.entries, total.entries), r.bytes,
                     pct(r.bytes, total.bytes), r.rollbacks);
    }
    fmt::format_to(it, "{:<12} {:>10} {:>12} {:>8} {:>14} {:>8} {:>10}\n", "Total", t.by_partition.size(),
                   total.entries, "(100.00)", total.bytes, "(100.00)", total.rollbacks);
  }
  out->Write(std::string_view(b.data(), b.size()));
}

void PrintStats(const app::DumpTotals& t, size_t nodes, bool json, Sink* out) {
  uint64_t records = 0, bytes = 0;
  for (const auto& s : t.by_type) {
    records += s.count;
    bytes += s.bytes;
  }
  auto pct = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  };
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  if (json) {
    fmt::format_to(it,
                   "{{\"schema\":1,\"nodes\":{},\"segments\":{},\"records\":{},\"bytes\":{},"
                   "\"torn_tails\":{},\"errors\":{},\"types\":[",
                   nodes, t.segments, records, bytes, t.torn_tails, t.errors);
    bool first = true;
    for (size_t i = 0; i < t.by_type.size(); ++i) {
      const auto& s = t.by_type[i];
      if (s.count == 0) continue;
      fmt::format_to(it, "{}{{\"type\":\"{}\",\"type_id\":{},\"count\":{},\"bytes\":{}}}", first ? "" : ",",
                     StatsName(t, i, "UNKNOWN"), i, s.count, s.bytes);
      first = false;
    }
    fmt::format_to(it, "]}}\n");
  } else {
    fmt::format_to(it, "WAL statistics: {} node(s), {} segment(s), {} torn tail(s), {} error(s)\n", nodes, t.segments,
                   t.torn_tails, t.errors);
    fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "Type", "N", "(%)", "Bytes", "(%)");
    fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "----", "-", "---", "-----", "---");
    for (size_t i = 0; i < t.by_type.size(); ++i) {
      const auto& s = t.by_type[i];
      if (s.count == 0) continue;
      std::string name = StatsName(t, i, fmt::format("UNKNOWN({})", i));
      fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", name, s.count,
                     fmt::format("({:.2f})", pct(s.count, records)), s.bytes,
                     fmt::format("({:.2f})", pct(s.bytes, bytes)));
    }
    fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "Total", records, "(100.00)", bytes, "(100.00)");
  }
  out->Write(std::string_view(b.data(), b.size()));
}

// What a part writes, held in chunks of 1 MiB: strings that grew to a part's size would
// each be a new large allocation, which the allocator keeps once freed.
class ChunkSink : public Sink {
 public:
  void Write(std::string_view bytes) override {
    while (!bytes.empty()) {
      if (chunks_.empty() || chunks_.back().size() == kChunk) {
        chunks_.emplace_back();
        chunks_.back().reserve(kChunk);
      }
      std::string& c = chunks_.back();
      const size_t n = std::min(bytes.size(), kChunk - c.size());
      c.append(bytes.substr(0, n));
      bytes.remove_prefix(n);
    }
  }
  void WriteTo(Sink* to) const {
    for (const auto& c : chunks_) to->Write(c);
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  std::vector<std::string> chunks_;
};

// Prints what the reading shows: each record as a text line or a JSON line, each message
// as walcut's errors and warnings are. A part (of a reading side by side) holds its lines
// and messages until it is joined.
class DumpPrinter : public app::DumpSink {
 public:
  DumpPrinter(const DumpOptions& o, Sink* out, Sink* err) : o_(o), out_(out), err_(err) { Init(); }
  // A part: what it writes held until it is joined.
  explicit DumpPrinter(const DumpOptions& o) : o_(o) {
    out_ = &held_out_;
    err_ = &held_err_;
    Init();
  }

  void Record(const std::string& node, const wal::Record& rec, const std::vector<uint32_t>* entries,
              const wal::BinaryTypes* types) override {
    format_.entries = entries;
    format_.binary_types = types;
    line_.clear();
    if (o_.json) {
      AppendRecordJson(node, rec, format_, &line_);
    } else {
      AppendRecordText(node, rec, format_, &line_);
    }
    out_->Write(std::string_view(line_.data(), line_.size()));
  }
  void Warning(const std::string& message) override { Output{out_, err_}.Warning("{}", message); }
  void Error(const std::string& message) override { Output{out_, err_}.Error("{}", message); }
  bool good() const override { return out_->good(); }
  void Flush() override { out_->Flush(); }
  std::unique_ptr<app::DumpSink> NewPart() const override { return std::make_unique<DumpPrinter>(o_); }
  void Join(app::DumpSink& part) override {
    auto& p = static_cast<DumpPrinter&>(part);
    p.held_out_.WriteTo(out_);
    err_->Write(p.held_err_.text());
  }

 private:
  void Init() {
    format_.values = o_.values;
    format_.cache_names = o_.cache_names.empty() ? nullptr : &o_.cache_names;
  }

  const DumpOptions& o_;
  ChunkSink held_out_;
  StringSink held_err_;
  Sink* out_ = nullptr;
  Sink* err_ = nullptr;
  RecordFormat format_;
  fmt::memory_buffer line_;
};

}  // namespace

int RunDump(const DumpOptions& given, Output& output) {
  auto resolved = app::ResolveWalInputs(given.paths);
  if (!resolved.ok()) {
    output.Error("{}", resolved.status().message());
    return kExitUnreadable;
  }
  DumpOptions o = given;
  bool ignite = false;
  o.cache_names = KnownCaches(*resolved, &ignite);
  if (!o.cache_wanted.empty()) {
    o.caches.clear();
    if (!ResolveCacheNames(o.cache_wanted, o.cache_names, ignite, o.paths.empty() ? "" : o.paths[0], &o.caches,
                           output)) {
      return kExitUsage;
    }
  }
  const size_t nodes = resolved->nodes.size();
  DumpPrinter printer(o, output.out, output.err);
  const app::DumpTotals totals = app::ReadForDump(o, printer, std::move(resolved->nodes));
  if (o.stats && !o.quiet) {
    if (o.stats_by == app::StatsBy::kType) {
      PrintStats(totals, nodes, o.json, output.out);
    } else {
      PrintStatsBy(totals, nodes, o.stats_by, o.json, output.out);
    }
  }
  output.out->Flush();
  if (totals.io_errors > 0) return kExitUnreadable;
  if (totals.errors > 0) return kExitProblems;
  return o.stop != nullptr && o.stop->load() ? kExitInterrupted : kExitOk;
}

}  // namespace tools
