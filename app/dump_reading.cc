// dump's reading (dump_reading.h). Over 400 lines for a reason: the three shapes of one
// reading (every input in passes, nodes side by side, one node in parts) share DumpRun,
// whose members they reach into, and stay beside it.
#include "app/dump_reading.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "libwal/ignite_record.h"
#include "libwal/in_order.h"
#include "libwal/segment_codec.h"
#include "libwal/wal_parts.h"
#include "libwal/wal_reader.h"

namespace app {
namespace {

using wal::Record;
using wal::RecordType;

// `--stats` with no filter, range or limit.
bool CountsEverything(const DumpReading& o) {
  return o.stats && o.types.empty() && !o.tx && !o.partition && o.caches.empty() && !o.key && !o.cut && !o.from &&
         !o.to && !o.limit && !o.since && !o.until && o.stats_by != StatsBy::kPartition &&
         o.stats_by != StatsBy::kCache;
}

// One dump: every input read in passes (one, or more with --follow), each pass from
// where the previous one stopped.
class DumpRun {
 public:
  // `types`: the binary types of every input, already loaded (a part of a node's WAL).
  DumpRun(const DumpReading& o, DumpSink& sink, std::vector<WalInput> inputs, const wal::BinaryTypes* types = nullptr)
      : o_(o),
        sink_(sink),
        inputs_(std::move(inputs)),
        filter_(o),
        resume_(inputs_.size()),
        started_(inputs_.size(), false),
        binary_types_(inputs_.size()) {
    if (types != nullptr) {
      for (auto& t : binary_types_) t = *types;
    } else if (!o.stats || o.key) {
      // The names of Ignite's binary types and fields, for the values and keys shown.
      for (size_t i = 0; i < inputs_.size(); ++i) {
        std::vector<std::string> problems;
        for (const auto& dir : BinaryMetaDirsOf(inputs_[i])) binary_types_[i].LoadDir(dir, &problems);
        for (const auto& p : problems) {
          if (!o.quiet) sink_.Warning(p + " (binary objects of that type shown without names)");
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
  const DumpTotals& totals() const { return totals_; }
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
                o_.stats_by == StatsBy::kPartition || o_.stats_by == StatsBy::kCache;
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
      if (!o_.quiet) sink_.Warning(issue.ToString());
      return;
    }
    ++totals_.errors;
    if (issue.kind == wal::IssueKind::kIoError) ++totals_.io_errors;
    sink_.Error(issue.ToString());
  }

  // Counts or prints one record that matched.
  void Show(const WalInput& in, const Record& rec, bool partial) {
    if (o_.stats) {
      auto& s = totals_.by_type[rec.type];
      totals_.ignite[rec.type] = totals_.ignite[rec.type] || wal::IsIgnite(rec.format);
      ++s.count;
      s.bytes += rec.size;
      if (o_.stats_by == StatsBy::kNode) {
        auto& n = totals_.by_node[in.node];
        ++n.count;
        n.bytes += rec.size;
      } else if (o_.stats_by != StatsBy::kType) {
        CountPartitions(rec, partial);
      }
    } else if (!o_.quiet) {
      sink_.Record(in.node, rec, partial ? &entries_ : nullptr, types_);
    }
  }

  // --stats=partition|cache: the entries of a data record (those the filters kept), and
  // a rollback record.
  void CountPartitions(const Record& rec, bool partial) {
    if (!wal::CodecFor(rec.format).Decodes(rec.type)) return;
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
    const WalInput& in = inputs_[i];
    const wal::BinaryTypes* types = binary_types_[i].empty() ? nullptr : &binary_types_[i];
    types_ = types;
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
        sink_.Error(std::string(r.status().message()));
        ++totals_.io_errors;
        ++totals_.errors;
        return false;
      }
      reader = std::move(r).value();
    }
    bool news = false;
    const Record* rec = nullptr;
    if (o_.limit && totals_.shown >= *o_.limit) limit_reached_ = true;
    if (CountsEverything(o_)) {
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
      if (o_.stats_by == StatsBy::kNode && records > 0) {
        auto& n = totals_.by_node[in.node];
        n.count += records;
        n.bytes += bytes;
      }
    }
    while (!limit_reached_ && reader->Next(&rec)) {
      if (o_.to && !(rec->ptr < *o_.to)) break;
      news = true;
      if (o_.since || o_.until) {
        if (auto t = OwnTime(*rec)) last_time_[i] = *t;
        if ((o_.since && last_time_[i] < *o_.since) || (o_.until && last_time_[i] > *o_.until)) continue;
      }
      bool partial = false;
      if (!filter_.Match(*rec, &entries_, &partial)) continue;
      ++totals_.shown;
      Show(in, *rec, partial);
      // The limit, or the reader of our output went away (only a record written can tell).
      if ((o_.limit && totals_.shown >= *o_.limit) || (!o_.stats && !o_.quiet && !sink_.good())) {
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
        if (!o_.quiet) sink_.Warning(t.ToString());
      }
    }
    return news;
  }

  const DumpReading& o_;
  DumpSink& sink_;
  const std::vector<WalInput> inputs_;
  RecordFilter filter_;
  std::vector<uint64_t> last_time_ = std::vector<uint64_t>(inputs_.size(), 0);  // per input, for --since/--until
  DumpTotals totals_;
  const wal::BinaryTypes* types_ = nullptr;  // of the input being read
  std::vector<uint32_t> entries_;
  bool limit_reached_ = false;
  std::vector<wal::Pointer> resume_;
  std::vector<bool> started_;
  std::vector<wal::BinaryTypes> binary_types_;  // of each input
  bool more_follow_ = false;
  std::optional<uint64_t> after_index_;
  std::optional<wal::Uuid> part_node_;
};

// `dump --stats` of several nodes: the nodes counted on every core, each node's
// messages kept and written in input order, as one reader of all would write them: a
// node's as soon as it and every node before it are done. What a thread throws (out of
// memory) is thrown here once every thread has stopped.
DumpTotals StatsInParallel(const DumpReading& o, DumpSink& sink, std::vector<WalInput> inputs) {
  struct Part {
    std::unique_ptr<DumpSink> out;
    DumpTotals totals;
  };
  DumpTotals totals;
  const size_t threads = std::min<size_t>(inputs.size(), std::max(2u, std::thread::hardware_concurrency()));
  wal::MakeInOrder<Part>(
      inputs.size(), threads, inputs.size(),  // a part holds only its node's messages
      [&](size_t i) {
        Part part;
        part.out = sink.NewPart();
        DumpRun run(o, *part.out, {std::move(inputs[i])});
        run.Pass(true);
        part.totals = run.totals();
        return part;
      },
      [&](size_t, Part& part) {
        sink.Join(*part.out);
        totals.Add(part.totals);
        return true;
      });
  return totals;
}

// One node on every core: its segment files cut, between indexes, into `parts` runs
// (each read as a part of the one WAL: the reader knows that segments follow its last
// one, which index came before its first, and the node of the WAL's first header), each
// read into memory and written in WAL order as soon as it and every part before it are
// done; at most a part per core and one more are held. What is written is what one
// reader of the whole writes. False (nothing written) when the node is not worth
// cutting or cannot be cut.
bool ReadInParts(const DumpReading& o, DumpSink& sink, const WalInput& in, size_t parts, DumpTotals* totals) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  if (cores < 2 || in.wal_dir.empty()) return false;
  std::vector<std::vector<wal::SegmentFile>> units = wal::CutIntoParts(in.wal_dir, parts, o.parts_min_bytes);
  std::optional<wal::Uuid> node;
  if (units.empty() || !wal::FirstPartNode(units.front(), &node)) return false;
  // The binary types, read once (and any problem with them said once, first).
  wal::BinaryTypes types;
  if (!o.stats || o.key) {
    std::vector<std::string> problems;
    for (const auto& dir : BinaryMetaDirsOf(in)) types.LoadDir(dir, &problems);
    for (const auto& p : problems) {
      if (!o.quiet) sink.Warning(p + " (binary objects of that type shown without names)");
    }
  }
  struct Unit {
    std::unique_ptr<DumpSink> out;
    DumpTotals totals;
  };
  const size_t n = units.size();
  wal::MakeInOrder<Unit>(
      n, cores, cores + 1,  // parts held in memory at most
      [&](size_t k) {
        Unit unit;
        unit.out = sink.NewPart();
        WalInput piece = in;
        piece.wal_dir = wal::WalLocation();
        piece.files = units[k];
        DumpRun run(o, *unit.out, {std::move(piece)}, &types);
        run.ReadAsPart(k + 1 < n, k == 0 ? std::nullopt : std::optional(units[k - 1].back().index), node);
        run.Pass(true);
        unit.totals = run.totals();
        return unit;
      },
      [&](size_t, Unit& unit) {
        sink.Join(*unit.out);
        totals->Add(unit.totals);
        return o.quiet || sink.good();  // or the reader of our output went away
      });
  return true;
}

}  // namespace

DumpTotals ReadForDump(const DumpReading& o, DumpSink& sink, std::vector<WalInput> inputs) {
  if (o.stats && !o.follow && !o.limit && inputs.size() > 1) return StatsInParallel(o, sink, std::move(inputs));
  // One node in parts: the table in one run per core; text and JSON one segment index
  // per part, so the output held waiting stays small.
  const bool by_parts =
      CountsEverything(o) || (!o.stats && !o.limit && !o.from && !o.to && !o.cut && !o.since && !o.until);
  if (inputs.size() == 1 && !o.follow && by_parts) {
    DumpTotals totals;
    const size_t parts = o.stats ? std::max(1u, std::thread::hardware_concurrency()) : SIZE_MAX;
    if (ReadInParts(o, sink, inputs[0], parts, &totals)) return totals;
  }
  DumpRun run(o, sink, std::move(inputs));
  run.Pass(!o.follow);
  if (o.follow) {
    auto now = [] { return std::chrono::steady_clock::now(); };
    auto last_news = now();
    sink.Flush();
    while (!run.limit_reached() && !(o.stop && o.stop->load())) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o.follow_interval));
      if (run.Pass(false)) {
        last_news = now();
        sink.Flush();
      } else if (o.follow_idle && std::chrono::duration<double>(now() - last_news).count() >= *o.follow_idle) {
        break;
      }
    }
    run.Pass(true);
  }
  return run.totals();
}

void DumpTotals::Add(const DumpTotals& from) {
  for (const auto& [node, n] : from.by_node) {
    by_node[node].count += n.count;
    by_node[node].bytes += n.bytes;
  }
  for (const auto& [key, p] : from.by_partition) {
    auto& q = by_partition[key];
    q.entries += p.entries;
    q.bytes += p.bytes;
    q.rollbacks += p.rollbacks;
  }
  for (size_t i = 0; i < from.by_type.size(); ++i) {
    by_type[i].count += from.by_type[i].count;
    by_type[i].bytes += from.by_type[i].bytes;
    ignite[i] = ignite[i] || from.ignite[i];
  }
  records += from.records;
  shown += from.shown;
  segments += from.segments;
  errors += from.errors;
  io_errors += from.io_errors;
  torn_tails += from.torn_tails;
}

}  // namespace app
