#include "tools/dump.h"

#include <array>
#include <chrono>
#include <thread>

#include "libwal/cache_object.h"
#include "libwal/ignite_record.h"
#include "libwal/wal_reader.h"
#include "tools/inputs.h"

namespace tools {
namespace {

using wal::Record;
using wal::RecordType;

struct TypeStats {
  uint64_t count = 0;
  uint64_t bytes = 0;
};

class Filter {
 public:
  explicit Filter(const DumpOptions& o) : o_(o) {
    for (uint8_t t : o.types) types_[t] = true;
    any_type_ = o.types.empty();
    entry_level_ = o.tx || o.partition || o.key;
  }

  // Whether to show `r`; for a DATA_RECORD_V2 under an entry filter, also which entries.
  bool Match(const Record& r, std::vector<uint32_t>* entries, bool* partial) const {
    *partial = false;
    if (!any_type_ && !types_[r.type]) return false;
    if (o_.from && r.ptr < *o_.from) return false;
    const auto& a = r.decoded;
    if (wal::IsIgnite(r.format) && !wal::IsDecodedIgniteType(r.type)) {
      return !(o_.tx || o_.partition || o_.key || o_.cut);
    }
    switch (static_cast<RecordType>(r.type)) {
      case RecordType::kData: {
        if (o_.cut) return false;
        if (!entry_level_) return true;
        entries->clear();
        const auto& es = a.data.entries;
        for (uint32_t i = 0; i < es.size(); ++i) {
          const auto& e = es[i];
          if (o_.tx && e.xid != *o_.tx) continue;
          if (o_.partition && e.partition != *o_.partition) continue;
          if (o_.key && !KeyMatches(r, e)) continue;
          entries->push_back(i);
        }
        *partial = entries->size() != es.size();
        return !entries->empty();
      }
      case RecordType::kTx:
        if (o_.partition || o_.key || o_.cut) return false;
        return !o_.tx || a.tx.xid == *o_.tx;
      case RecordType::kRollback:
        if (o_.tx || o_.key || o_.cut) return false;
        return !o_.partition || a.rollback.partition == *o_.partition;
      case RecordType::kCutStart:
        if (o_.tx || o_.partition || o_.key) return false;
        return !o_.cut || a.cut_start.cut_id.ToString().starts_with(*o_.cut);
      case RecordType::kCutFinish: {
        if (o_.partition || o_.key) return false;
        if (o_.cut && !a.cut_finish.cut_id.ToString().starts_with(*o_.cut)) return false;
        if (!o_.tx) return true;
        auto has = [&](const std::vector<wal::TxId>& v) {
          return std::find(v.begin(), v.end(), *o_.tx) != v.end();
        };
        return has(a.cut_finish.before) || has(a.cut_finish.after);
      }
      default:
        return !(o_.tx || o_.partition || o_.key || o_.cut);
    }
  }

 private:
  // walcut's keys are bytes; an Ignite key matches by its text (an int key 42 by "42",
  // a String by itself) or by its bytes.
  bool KeyMatches(const Record& r, const wal::DataEntry& e) const {
    if (e.key == *o_.key) return true;
    return wal::IsIgnite(r.format) && wal::CacheObjectText(e.key_type, e.key) == *o_.key;
  }

  const DumpOptions& o_;
  std::array<bool, 256> types_{};
  bool any_type_ = true;
  bool entry_level_ = false;
};

struct Totals {
  std::array<TypeStats, 256> by_type{};
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
  return ignite != nullptr ? ignite : unknown;
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
    fmt::format_to(it, "{{\"schema\":1,\"nodes\":{},\"segments\":{},\"records\":{},\"bytes\":{},"
                       "\"torn_tails\":{},\"errors\":{},\"types\":[",
                   nodes, t.segments, records, bytes, t.torn_tails, t.errors);
    bool first = true;
    for (size_t i = 0; i < t.by_type.size(); ++i) {
      const auto& s = t.by_type[i];
      if (s.count == 0) continue;
      fmt::format_to(it, "{}{{\"type\":\"{}\",\"type_id\":{},\"count\":{},\"bytes\":{}}}",
                     first ? "" : ",", StatsName(t, i, "UNKNOWN"), i, s.count, s.bytes);
      first = false;
    }
    fmt::format_to(it, "]}}\n");
  } else {
    fmt::format_to(it, "WAL statistics: {} node(s), {} segment(s), {} torn tail(s), {} error(s)\n",
                   nodes, t.segments, t.torn_tails, t.errors);
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
    fmt::format_to(it, "{:<36} {:>12} {:>8} {:>14} {:>8}\n", "Total", records, "(100.00)", bytes,
                   "(100.00)");
  }
  out->Write(std::string_view(b.data(), b.size()));
}

}  // namespace

int RunDump(const DumpOptions& o, Output& output) {
  auto resolved = ResolveWalInputs(o.paths);
  if (!resolved.ok()) {
    output.Error("{}", resolved.status().message());
    return kExitUnreadable;
  }
  std::vector<WalInput> inputs = std::move(resolved->nodes);
  Filter filter(o);
  Totals totals;
  RecordFormat format;
  format.values = o.values;
  std::vector<uint32_t> entries;
  fmt::memory_buffer line;
  bool limit_reached = false;
  std::vector<wal::Pointer> resume(inputs.size());
  std::vector<bool> started(inputs.size(), false);

  auto now = [] { return std::chrono::steady_clock::now(); };
  auto last_news = now();

  // One pass over every input from where the previous pass stopped. In --follow mode the
  // torn tail of a live WAL is a record still being written: not reported until the end.
  auto pass = [&](bool final_pass) -> bool {
    bool news = false;
    for (size_t i = 0; i < inputs.size() && !limit_reached; ++i) {
      const WalInput& in = inputs[i];
      wal::ReaderOptions ro;
      ro.verify_checksums = o.verify;
      // The table needs only the framing: checksums are verified, payloads not decoded.
      ro.decode = !o.stats || o.tx || o.partition || o.key || o.cut;
      if (started[i]) {
        ro.from = resume[i];
        ro.from_is_boundary = true;
      } else if (o.from) {
        ro.from = *o.from;
      }
      std::vector<wal::Issue> torn;
      auto reporter = [&](const wal::Issue& issue) {
        if (issue.kind == wal::IssueKind::kTornTail) {
          torn.push_back(issue);
          return;
        }
        // A resumed follow pass sees sequence issues (and a live Ignite work file's stale
        // bytes) again; report each once.
        if (started[i] && (issue.kind == wal::IssueKind::kMissingSegment ||
                           issue.kind == wal::IssueKind::kDuplicateSegment ||
                           issue.kind == wal::IssueKind::kRedundantCopy ||
                           issue.kind == wal::IssueKind::kStaleBytes)) {
          return;
        }
        if (!issue.IsError()) {
          if (!o.quiet) output.Warning("{}", issue.ToString());
          return;
        }
        ++totals.errors;
        if (issue.kind == wal::IssueKind::kIoError) ++totals.io_errors;
        output.Error("{}", issue.ToString());
      };
      std::unique_ptr<wal::WalReader> reader;
      if (!in.files.empty()) {
        reader = wal::WalReader::OpenFiles(in.files, ro, reporter);
      } else {
        auto r = wal::WalReader::OpenDirectory(in.wal_dir, ro, reporter);
        if (!r.ok()) {
          output.Error("{}", r.status().message());
          ++totals.io_errors;
          ++totals.errors;
          continue;
        }
        reader = std::move(r).value();
      }
      const Record* rec = nullptr;
      if (o.limit && totals.shown >= *o.limit) limit_reached = true;
      while (!limit_reached && reader->Next(&rec)) {
        if (o.to && !(rec->ptr < *o.to)) break;
        news = true;
        bool partial = false;
        if (!filter.Match(*rec, &entries, &partial)) continue;
        ++totals.shown;
        if (o.stats) {
          auto& s = totals.by_type[rec->type];
          totals.ignite[rec->type] = totals.ignite[rec->type] || wal::IsIgnite(rec->format);
          ++s.count;
          s.bytes += rec->size;
        } else if (!o.quiet) {
          format.entries = partial ? &entries : nullptr;
          line.clear();
          if (o.json) {
            AppendRecordJson(in.node, *rec, format, &line);
          } else {
            AppendRecordText(in.node, *rec, format, &line);
          }
          output.out->Write(std::string_view(line.data(), line.size()));
        }
        if (o.limit && totals.shown >= *o.limit) {
          limit_reached = true;
          break;
        }
        if (!output.out->good()) {
          limit_reached = true;  // the reader of our output went away
          break;
        }
      }
      totals.segments += reader->segments_read() - (started[i] && reader->segments_read() > 0);
      // A pass that read nothing leaves the resume point where it was.
      if (reader->end() != wal::Pointer{}) resume[i] = reader->end();
      started[i] = true;
      if (final_pass || !o.follow) {
        for (const auto& t : torn) {
          ++totals.torn_tails;
          if (!o.quiet) output.Warning("{}", t.ToString());
        }
      }
    }
    return news;
  };

  pass(!o.follow);
  if (o.follow) {
    output.out->Flush();
    while (!limit_reached && !(o.stop && o.stop->load())) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o.follow_interval));
      if (pass(false)) {
        last_news = now();
        output.out->Flush();
      } else if (o.follow_idle &&
                 std::chrono::duration<double>(now() - last_news).count() >= *o.follow_idle) {
        break;
      }
    }
    pass(true);
  }
  if (o.stats && !o.quiet) PrintStats(totals, inputs.size(), o.json, output.out);
  output.out->Flush();
  if (totals.io_errors > 0) return kExitUnreadable;
  if (totals.errors > 0) return kExitProblems;
  return o.stop != nullptr && o.stop->load() ? kExitInterrupted : kExitOk;
}

}  // namespace tools
