#include "tools/dump.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "app/inputs.h"
#include "app/record_filter.h"
#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/ignite_record.h"
#include "libwal/in_order.h"
#include "libwal/wal_parts.h"
#include "libwal/wal_reader.h"
#include "tools/cache_names.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

using wal::Record;
using wal::RecordType;

struct TypeStats {
  uint64_t count = 0;
  uint64_t bytes = 0;
};

// Of one partition (or cache): the data entries written to it, their key and value
// bytes, and the rollback records that name it.
struct PartStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t rollbacks = 0;
};

// `--stats` with no filter, range or limit.
bool CountsEverything(const DumpOptions& o) {
  return o.stats && o.types.empty() && !o.tx && !o.partition && o.caches.empty() && !o.key && !o.cut && !o.from &&
         !o.to && !o.limit && !o.since && !o.until && o.stats_by != DumpOptions::StatsBy::kPartition &&
         o.stats_by != DumpOptions::StatsBy::kCache;
}

struct Totals {
  std::array<TypeStats, 256> by_type{};
  std::map<std::string, TypeStats> by_node;                         // --stats=node
  std::map<std::pair<uint32_t, uint32_t>, PartStats> by_partition;  // --stats=partition|cache: (cache, partition)
  std::array<bool, 256> ignite{};  // a type id met in an Ignite segment: named as Ignite names it
  uint64_t records = 0;
  uint64_t shown = 0;
  uint64_t segments = 0;
  uint64_t errors = 0;
  uint64_t io_errors = 0;
  uint64_t torn_tails = 0;
};

// A type's name in the table: walcut's, else Ignite's when met in an Ignite segment.
std::string StatsName(const Totals& t, size_t id, std::string unknown) {
  const auto type = static_cast<uint8_t>(id);
  if (wal::IsKnownRecordType(type)) return wal::RecordTypeName(type);
  const char* ignite = t.ignite[id] ? wal::IgniteRecordTypeName(type) : nullptr;
  if (ignite != nullptr) return ignite;
  return unknown;
}

// --stats=node|partition|cache: one row per node, partition or cache, and the total.
void PrintStatsBy(const Totals& t, size_t nodes, DumpOptions::StatsBy by, bool json, Sink* out) {
  auto pct = [](uint64_t part, uint64_t whole) {
    return fmt::format("({:.2f})", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  };
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  const char* what = by == DumpOptions::StatsBy::kNode    ? "node"
                     : by == DumpOptions::StatsBy::kCache ? "cache"
                                                          : "partition";
  if (by == DumpOptions::StatsBy::kNode) {
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
  std::map<std::pair<uint32_t, uint32_t>, PartStats> rows;
  std::map<uint32_t, uint64_t> partitions;  // per cache, with --stats=cache
  for (const auto& [key, p] : t.by_partition) {
    const auto row = by == DumpOptions::StatsBy::kCache ? std::make_pair(key.first, 0u) : key;
    auto& r = rows[row];
    r.entries += p.entries;
    r.bytes += p.bytes;
    r.rollbacks += p.rollbacks;
    ++partitions[key.first];
  }
  PartStats total;
  for (const auto& [key, r] : rows) {
    total.entries += r.entries;
    total.bytes += r.bytes;
    total.rollbacks += r.rollbacks;
  }
  const bool cache = by == DumpOptions::StatsBy::kCache;
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

void PrintStats(const Totals& t, size_t nodes, bool json, Sink* out) {
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

// One dump: every input read in passes (one, or more with --follow), each pass from
// where the previous one stopped.
class DumpRun {
 public:
  // `types`: the binary types of every input, already loaded (a part of a node's WAL).
  DumpRun(const DumpOptions& o, Output& output, std::vector<app::WalInput> inputs,
          const wal::BinaryTypes* types = nullptr)
      : o_(o),
        output_(output),
        inputs_(std::move(inputs)),
        filter_(o),
        resume_(inputs_.size()),
        started_(inputs_.size(), false),
        binary_types_(inputs_.size()) {
    format_.values = o.values;
    if (types != nullptr) {
      for (auto& t : binary_types_) t = *types;
    } else if (!o.stats || o.key) {
      // The names of Ignite's binary types and fields, for the values and keys shown.
      for (size_t i = 0; i < inputs_.size(); ++i) {
        std::vector<std::string> problems;
        for (const auto& dir : app::BinaryMetaDirsOf(inputs_[i])) binary_types_[i].LoadDir(dir, &problems);
        for (const auto& p : problems) {
          if (!o.quiet) output_.Warning("{} (binary objects of that type shown without names)", p);
        }
      }
    }
  }

  // Reads what is new in every input; returns whether there was any record. In --follow
  // mode the torn tail of a live WAL is a record still being written: reported only on
  // the final pass.
  bool Pass(bool final_pass) {
    bool news = false;
    for (size_t i = 0; i < inputs_.size() && !limit_reached_; ++i) news = PassInput(i, final_pass) || news;
    return news;
  }
  bool limit_reached() const { return limit_reached_; }
  const Totals& totals() const { return totals_; }
  // Its inputs are one part of a node's WAL (wal::ReaderOptions::more_follow,
  // after_index, node_id).
  void ReadAsPart(bool more_follow, std::optional<uint64_t> after_index, std::optional<wal::Uuid> node) {
    more_follow_ = more_follow;
    after_index_ = after_index;
    part_node_ = node;
  }

 private:
  wal::ReaderOptions ReaderOptionsFor(size_t i) const {
    wal::ReaderOptions ro;
    ro.verify_checksums = o_.verify;
    // The table needs only the framing: checksums are verified, payloads not decoded.
    ro.decode = !o_.stats || o_.tx || o_.partition || o_.key || o_.cut || o_.since || o_.until ||
                o_.stats_by == DumpOptions::StatsBy::kPartition || o_.stats_by == DumpOptions::StatsBy::kCache;
    ro.more_follow = more_follow_;
    ro.after_index = after_index_;
    ro.node_id = part_node_;
    if (started_[i]) {
      ro.from = resume_[i];
      ro.from_is_boundary = true;
    } else if (o_.from) {
      ro.from = *o_.from;
    }
    return ro;
  }

  void Report(size_t i, const wal::Issue& issue, std::vector<wal::Issue>* torn) {
    if (issue.kind == wal::IssueKind::kTornTail) {
      torn->push_back(issue);
      return;
    }
    // A resumed follow pass sees sequence issues (and a live Ignite work file's stale
    // bytes) again; report each once.
    if (started_[i] &&
        (issue.kind == wal::IssueKind::kMissingSegment || issue.kind == wal::IssueKind::kDuplicateSegment ||
         issue.kind == wal::IssueKind::kRedundantCopy || issue.kind == wal::IssueKind::kStaleBytes)) {
      return;
    }
    // An older segment's bytes after a reused Ignite work file's data are how Ignite leaves
    // every work file it reuses: normal, and not said.
    if (issue.kind == wal::IssueKind::kStaleBytes) return;
    if (!issue.IsError()) {
      if (!o_.quiet) output_.Warning("{}", issue.ToString());
      return;
    }
    ++totals_.errors;
    if (issue.kind == wal::IssueKind::kIoError) ++totals_.io_errors;
    output_.Error("{}", issue.ToString());
  }

  // Counts or prints one record that matched.
  void Show(const app::WalInput& in, const Record& rec, bool partial) {
    if (o_.stats) {
      auto& s = totals_.by_type[rec.type];
      totals_.ignite[rec.type] = totals_.ignite[rec.type] || wal::IsIgnite(rec.format);
      ++s.count;
      s.bytes += rec.size;
      if (o_.stats_by == DumpOptions::StatsBy::kNode) {
        auto& n = totals_.by_node[in.node];
        ++n.count;
        n.bytes += rec.size;
      } else if (o_.stats_by != DumpOptions::StatsBy::kType) {
        CountPartitions(rec, partial);
      }
    } else if (!o_.quiet) {
      format_.entries = partial ? &entries_ : nullptr;
      line_.clear();
      if (o_.json) {
        AppendRecordJson(in.node, rec, format_, &line_);
      } else {
        AppendRecordText(in.node, rec, format_, &line_);
      }
      output_.out->Write(std::string_view(line_.data(), line_.size()));
    }
  }

  // --stats=partition|cache: the entries of a data record (those the filters kept), and
  // a rollback record.
  void CountPartitions(const Record& rec, bool partial) {
    const bool decoded = !wal::IsIgnite(rec.format) || wal::IsDecodedIgniteType(rec.type);
    if (!decoded) return;
    if (rec.type == static_cast<uint8_t>(RecordType::kData)) {
      const auto& es = rec.decoded.data.entries;
      auto count = [&](const wal::DataEntry& e) {
        auto& p = totals_.by_partition[{e.cache_id, e.partition}];
        ++p.entries;
        p.bytes += e.key.size() + e.value.size();
      };
      if (partial) {
        for (uint32_t k : entries_) count(es[k]);
      } else {
        for (const auto& e : es) count(e);
      }
    } else if (rec.type == static_cast<uint8_t>(RecordType::kRollback)) {
      ++totals_.by_partition[{rec.decoded.rollback.cache_id, rec.decoded.rollback.partition}].rollbacks;
    }
  }

  bool PassInput(size_t i, bool final_pass) {
    const app::WalInput& in = inputs_[i];
    const wal::BinaryTypes* types = binary_types_[i].empty() ? nullptr : &binary_types_[i];
    format_.binary_types = types;
    format_.cache_names = o_.cache_names.empty() ? nullptr : &o_.cache_names;
    filter_.set_binary_types(types);
    const wal::ReaderOptions ro = ReaderOptionsFor(i);
    std::vector<wal::Issue> torn;
    auto reporter = [this, i, &torn](const wal::Issue& issue) { Report(i, issue, &torn); };
    std::unique_ptr<wal::WalReader> reader;
    if (!in.files.empty()) {
      reader = wal::WalReader::OpenFiles(in.files, ro, reporter);
    } else {
      auto r = wal::WalReader::OpenDirectory(in.wal_dir, ro, reporter);
      if (!r.ok()) {
        output_.Error("{}", r.status().message());
        ++totals_.io_errors;
        ++totals_.errors;
        return false;
      }
      reader = std::move(r).value();
    }
    bool news = false;
    const Record* rec = nullptr;
    if (o_.limit && totals_.shown >= *o_.limit) limit_reached_ = true;
    if (CountsEverything()) {
      // The plain table: every record counted, nothing to filter or print. This loop is
      // the whole cost of `dump --stats` beyond reading.
      uint64_t records = 0, bytes = 0;
      while (reader->Next(&rec)) {
        auto& s = totals_.by_type[rec->type];
        ++s.count;
        s.bytes += rec->size;
        totals_.ignite[rec->type] = totals_.ignite[rec->type] || wal::IsIgnite(rec->format);
        ++records;
        bytes += rec->size;
        news = true;
      }
      if (o_.stats_by == DumpOptions::StatsBy::kNode && records > 0) {
        auto& n = totals_.by_node[in.node];
        n.count += records;
        n.bytes += bytes;
      }
    }
    while (!limit_reached_ && reader->Next(&rec)) {
      if (o_.to && !(rec->ptr < *o_.to)) break;
      news = true;
      if (o_.since || o_.until) {
        if (auto t = app::OwnTime(*rec)) last_time_[i] = *t;
        if ((o_.since && last_time_[i] < *o_.since) || (o_.until && last_time_[i] > *o_.until)) continue;
      }
      bool partial = false;
      if (!filter_.Match(*rec, &entries_, &partial)) continue;
      ++totals_.shown;
      Show(in, *rec, partial);
      // The limit, or the reader of our output went away (only a record written can tell).
      if ((o_.limit && totals_.shown >= *o_.limit) || (!o_.stats && !o_.quiet && !output_.out->good())) {
        limit_reached_ = true;
      }
    }
    totals_.segments += reader->segments_read() - (started_[i] && reader->segments_read() > 0);
    // A pass that read nothing leaves the resume point where it was.
    if (reader->end() != wal::Pointer{}) resume_[i] = reader->end();
    started_[i] = true;
    if (final_pass || !o_.follow) {
      for (const auto& t : torn) {
        ++totals_.torn_tails;
        if (!o_.quiet) output_.Warning("{}", t.ToString());
      }
    }
    return news;
  }

  bool CountsEverything() const { return tools::CountsEverything(o_); }

  const DumpOptions& o_;
  Output& output_;
  const std::vector<app::WalInput> inputs_;
  app::RecordFilter filter_;
  std::vector<uint64_t> last_time_ = std::vector<uint64_t>(inputs_.size(), 0);  // per input, for --since/--until
  Totals totals_;
  RecordFormat format_;
  std::vector<uint32_t> entries_;
  fmt::memory_buffer line_;
  bool limit_reached_ = false;
  std::vector<wal::Pointer> resume_;
  std::vector<bool> started_;
  std::vector<wal::BinaryTypes> binary_types_;  // of each input
  bool more_follow_ = false;
  std::optional<uint64_t> after_index_;
  std::optional<wal::Uuid> part_node_;
};

void AddTotals(const Totals& from, Totals* to) {
  for (const auto& [node, n] : from.by_node) {
    to->by_node[node].count += n.count;
    to->by_node[node].bytes += n.bytes;
  }
  for (const auto& [key, p] : from.by_partition) {
    auto& q = to->by_partition[key];
    q.entries += p.entries;
    q.bytes += p.bytes;
    q.rollbacks += p.rollbacks;
  }
  for (size_t i = 0; i < from.by_type.size(); ++i) {
    to->by_type[i].count += from.by_type[i].count;
    to->by_type[i].bytes += from.by_type[i].bytes;
    to->ignite[i] = to->ignite[i] || from.ignite[i];
  }
  to->records += from.records;
  to->shown += from.shown;
  to->segments += from.segments;
  to->errors += from.errors;
  to->io_errors += from.io_errors;
  to->torn_tails += from.torn_tails;
}

// `dump --stats` of several nodes: the nodes counted on every core, each node's
// messages kept and written in input order, as one reader of all would write them: a
// node's as soon as it and every node before it are done. What a thread throws (out of
// memory) is thrown here once every thread has stopped.
Totals StatsInParallel(const DumpOptions& o, Output& output, std::vector<app::WalInput> inputs) {
  struct Part {
    StringSink err;
    Totals totals;
    bool done = false;
  };
  std::vector<Part> parts(inputs.size());
  std::mutex mu;  // guards `done`, `written`, `failure` and the writes to output.err
  size_t written = 0;
  std::exception_ptr failure;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < inputs.size();) {
      try {
        Output part_output = output;
        part_output.err = &parts[i].err;
        DumpRun run(o, part_output, {std::move(inputs[i])});
        run.Pass(true);
        parts[i].totals = run.totals();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next.store(inputs.size());
      }
      std::lock_guard<std::mutex> lock(mu);
      parts[i].done = true;
      for (; written < parts.size() && parts[written].done && !failure; ++written) {
        output.err->Write(parts[written].err.text());
        parts[written].err = StringSink();
      }
    }
  };
  {
    std::vector<std::jthread> pool;  // joined when the block ends, thrown out of or not
    const size_t threads = std::min<size_t>(inputs.size(), std::max(2u, std::thread::hardware_concurrency()));
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
  Totals totals;
  for (const Part& part : parts) AddTotals(part.totals, &totals);
  return totals;
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

// One node on every core: its segment files cut, between indexes, into `parts` runs
// (each read as a part of the one WAL: the reader knows that segments follow its last
// one, which index came before its first, and the node of the WAL's first header), each
// read into memory and written in WAL order as soon as it and every part before it are
// done; at most a part per core and one more are held. What is written is what one
// reader of the whole writes. False (nothing written) when the node is not worth
// cutting or cannot be cut.
bool ReadInParts(const DumpOptions& o, Output& output, const app::WalInput& in, size_t parts, Totals* totals) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  if (cores < 2 || in.wal_dir.empty()) return false;
  std::vector<std::vector<wal::SegmentFile>> units = wal::CutIntoParts(in.wal_dir, parts, o.parts_min_bytes);
  std::optional<wal::Uuid> node;
  if (units.empty() || !wal::FirstPartNode(units.front(), &node)) return false;
  // The binary types, read once (and any problem with them said once, first).
  wal::BinaryTypes types;
  if (!o.stats || o.key) {
    std::vector<std::string> problems;
    for (const auto& dir : app::BinaryMetaDirsOf(in)) types.LoadDir(dir, &problems);
    for (const auto& p : problems) {
      if (!o.quiet) output.Warning("{} (binary objects of that type shown without names)", p);
    }
  }
  struct Unit {
    ChunkSink out;
    StringSink err;
    Totals totals;
  };
  const size_t n = units.size();
  wal::MakeInOrder<Unit>(
      n, cores, cores + 1,  // parts held in memory at most
      [&](size_t k) {
        Unit unit;
        Output part_output = output;
        part_output.out = &unit.out;
        part_output.err = &unit.err;
        app::WalInput piece = in;
        piece.wal_dir = wal::WalLocation();
        piece.files = units[k];
        DumpRun run(o, part_output, {std::move(piece)}, &types);
        run.ReadAsPart(k + 1 < n, k == 0 ? std::nullopt : std::optional(units[k - 1].back().index), node);
        run.Pass(true);
        unit.totals = run.totals();
        return unit;
      },
      [&](size_t, Unit& unit) {
        unit.out.WriteTo(output.out);
        output.err->Write(unit.err.text());
        AddTotals(unit.totals, totals);
        return o.quiet || output.out->good();  // or the reader of our output went away
      });
  return true;
}

// Reads every input once (or, with --follow, until stopped); the totals of what was read.
Totals ReadAll(const DumpOptions& o, Output& output, std::vector<app::WalInput> inputs) {
  if (o.stats && !o.follow && !o.limit && inputs.size() > 1) return StatsInParallel(o, output, std::move(inputs));
  // One node in parts: the table in one run per core; text and JSON one segment index
  // per part, so the output held waiting stays small.
  const bool by_parts =
      CountsEverything(o) || (!o.stats && !o.limit && !o.from && !o.to && !o.cut && !o.since && !o.until);
  if (inputs.size() == 1 && !o.follow && by_parts) {
    Totals totals;
    const size_t parts = o.stats ? std::max(1u, std::thread::hardware_concurrency()) : SIZE_MAX;
    if (ReadInParts(o, output, inputs[0], parts, &totals)) return totals;
  }
  DumpRun run(o, output, std::move(inputs));
  run.Pass(!o.follow);
  if (o.follow) {
    auto now = [] { return std::chrono::steady_clock::now(); };
    auto last_news = now();
    output.out->Flush();
    while (!run.limit_reached() && !(o.stop && o.stop->load())) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o.follow_interval));
      if (run.Pass(false)) {
        last_news = now();
        output.out->Flush();
      } else if (o.follow_idle && std::chrono::duration<double>(now() - last_news).count() >= *o.follow_idle) {
        break;
      }
    }
    run.Pass(true);
  }
  return run.totals();
}

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
  const Totals totals = ReadAll(o, output, std::move(resolved->nodes));
  if (o.stats && !o.quiet) {
    if (o.stats_by == DumpOptions::StatsBy::kType) {
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
