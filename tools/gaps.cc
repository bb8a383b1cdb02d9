#include "tools/gaps.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <string>

#include "app/gap_closing.h"
#include "app/inputs.h"
#include "recovery/gaps.h"
#include "tools/cache_names.h"
#include "tools/json_writer.h"
#include "tools/progress.h"

namespace tools {
namespace {

// Every node's gaps (app::ScanClusterGaps); on failure prints the error and sets *code.
bool Scan(const std::vector<app::WalInput>& inputs, bool cluster, Output& output, std::vector<recovery::NodeGaps>* out,
          int* code) {
  auto scanned = app::ScanClusterGaps(inputs, cluster);
  if (!scanned.ok()) {
    output.Error("{}", scanned.status().message());
    *code = kExitUnreadable;
    return false;
  }
  *out = std::move(scanned).value();
  return true;
}

std::string GapText(const recovery::CounterGap& g) {
  std::string s =
      fmt::format("{}..{} ({} counter{})", g.first, g.last, g.last - g.first + 1, g.last == g.first ? "" : "s");
  if (g.xid)
    s += fmt::format(" tx {} {}", g.xid->ToString(), recovery::GapFateName(g.fate));
  else
    s += " no-owner";
  if (g.committed_elsewhere) s += " (committed on another node)";
  return s;
}

// Appends `records` to the WAL of `n` (app::AppendRollbacks), synced before they are
// reported in `written`.
bool AppendRollbacks(const recovery::NodeGaps& n, const std::vector<wal::RollbackRecord>& records, Output& output,
                     fmt::memory_buffer* written) {
  auto at = app::AppendRollbacks(n, records);
  if (!at.ok()) {
    output.Error("{}", at.status().message());
    return false;
  }
  for (size_t k = 0; k < records.size(); ++k) {
    const auto& r = records[k];
    fmt::format_to(std::back_inserter(*written),
                   "{} wrote ROLLBACK_TX_RECORD at {} cache {} part {} start {} range {}\n", n.node,
                   (*at)[k].ToString(), r.cache_id, r.partition, r.start, r.range);
  }
  return true;
}

// --close: node by node, each node's records on disk before the next node's are
// written, so that stopping leaves every WAL whole. What is written is listed in
// `written`. Returns an exit status, or -1 to go on.
int CloseGaps(const GapsOptions& o, bool cluster, const std::vector<recovery::NodeGaps>& nodes, Output& output,
              fmt::memory_buffer* written) {
  const std::atomic<bool>* stop = o.cancellable && !o.dry_run ? o.cancellable() : nullptr;
  for (const auto& n : nodes) {
    if (stop != nullptr && stop->load()) {
      output.Error("interrupted: the nodes before {} are closed, the others untouched", n.node);
      output.err->Write(std::string_view(written->data(), written->size()));
      return kExitInterrupted;
    }
    const std::vector<wal::RollbackRecord> records = app::RollbacksFor(n, cluster, o.finalize);
    if (records.empty()) continue;
    if (!n.errors.empty()) {
      output.Error("{}: not closing gaps in a damaged WAL", n.node);
      continue;
    }
    if (o.dry_run) {
      for (const auto& r : records) {
        fmt::format_to(std::back_inserter(*written),
                       "{} would write ROLLBACK_TX_RECORD cache {} part {} start {} range {}\n", n.node, r.cache_id,
                       r.partition, r.start, r.range);
      }
      continue;
    }
    if (!AppendRollbacks(n, records, output, written)) return kExitUnreadable;
  }
  return -1;
}

// A cache's id as its format prints it (Ignite's a signed int), with its name when known.
struct CacheNaming {
  std::map<uint32_t, std::string> names;
  bool ignite = false;
  std::string Id(uint32_t id) const { return ignite ? std::to_string(static_cast<int32_t>(id)) : std::to_string(id); }
  const std::string* Name(const recovery::CopyGaps& c) const {
    if (c.group) return nullptr;  // a shared group's id names no cache
    auto it = names.find(c.cache);
    return it == names.end() ? nullptr : &it->second;
  }
};

void GapsJson(const std::vector<recovery::NodeGaps>& nodes, size_t open, const CacheNaming& naming,
              fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("open_gaps", open).Key("nodes").BeginArray();
  for (const auto& n : nodes) {
    j.BeginObject().Field("node", n.node).Field("torn_tail", n.torn_tail).Field("first_segment", n.first_segment);
    j.Key("partitions").BeginArray();
    for (const auto& c : n.copies) {
      j.BeginObject().Field("cache", c.cache);
      if (const std::string* name = naming.Name(c)) j.Field("cache_name", *name);
      j.Field("group", c.group).Field("partition", c.partition);
      j.Field("lwm", c.lwm).Field("hwm", c.hwm).Field("meta_lwm", c.meta_lwm).Field("unread_below", c.unread_below);
      j.Key("gaps").BeginArray();
      for (const auto& g : c.gaps) j.BeginArray().Uint(g.first).Uint(g.last).EndArray();
      j.EndArray().Key("owners").BeginArray();
      for (const auto& g : c.gaps) {
        j.BeginObject().Field("first", g.first).Field("last", g.last).Key("tx");
        if (g.xid) {
          j.String(g.xid->ToString());
        } else {
          j.Null();
        }
        j.Field("fate", recovery::GapFateName(g.fate)).Field("committed_elsewhere", g.committed_elsewhere).EndObject();
      }
      j.EndArray().EndObject();
    }
    j.EndArray().EndObject();
  }
  j.EndArray().EndObject();
  b->push_back('\n');
}

void GapsText(const std::vector<recovery::NodeGaps>& nodes, size_t copies, size_t with, size_t open,
              const CacheNaming& naming, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  for (const auto& n : nodes) {
    for (const auto& c : n.copies) {
      if (c.gaps.empty()) continue;
      const std::string* name = naming.Name(c);
      fmt::format_to(it, "{} {} {}{} partition {} lwm {} hwm {}: {} gap(s)\n", n.node, c.group ? "group" : "cache",
                     naming.Id(c.cache), name != nullptr ? " (" + *name + ")" : std::string(), c.partition, c.lwm,
                     c.hwm, c.gaps.size());
      for (const auto& g : c.gaps) fmt::format_to(it, "  {}\n", GapText(g));
    }
  }
  fmt::format_to(it, "{} partition copies on {} node(s): {} with gaps, {} open gap(s)\n", copies, nodes.size(), with,
                 open);
}

}  // namespace

int RunGaps(const GapsOptions& o, Output& output) {
  auto inputs = app::ResolveWalInputs(o.paths);
  if (!inputs.ok()) {
    output.Error("{}", inputs.status().message());
    return kExitUnreadable;
  }
  for (const auto& in : inputs->nodes) {
    if (in.wal_dir.empty()) {
      output.Error("gaps needs node WAL directories, not single segment files");
      return kExitUsage;
    }
    if (o.close && app::IsIgniteInput(in)) {
      output.Error(
          "gaps --close: {} is Apache Ignite's WAL, which walcut never writes into; without --close the "
          "gaps are reported",
          in.node);
      return kExitUsage;
    }
  }
  const bool cluster = inputs->nodes.size() > 1 || inputs->cluster.has_value();
  std::vector<recovery::NodeGaps> nodes;
  int code = kExitOk;
  {
    Progress progress = WalProgress(output, "reading the WALs", inputs->nodes);
    if (!Scan(inputs->nodes, cluster, output, &nodes, &code)) return code;
  }
  bool damaged = false;
  for (const auto& n : nodes) {
    if (!n.torn_tail_text.empty()) output.Warning("{}", n.torn_tail_text);
    const size_t unread = static_cast<size_t>(std::count_if(
        n.copies.begin(), n.copies.end(), [](const recovery::CopyGaps& c) { return c.unread_below > 0; }));
    if (unread > 0) {
      output.Warning(
          "{}: its WAL begins at segment {}: in {} partition cop{} the counters below the first one its "
          "records show are not known, and not reported as gaps",
          n.node, n.first_segment, unread, unread == 1 ? "y" : "ies");
    }
    for (const auto& e : n.errors) output.Error("{}", e);
    damaged |= !n.errors.empty();
  }
  // What --close writes goes to stdout, or with --json to stderr, so that stdout stays
  // one JSON document.
  fmt::memory_buffer written;
  if (o.close && damaged) {
    // A damaged WAL may hide the COMMITTED record that makes a gap elsewhere unclosable.
    output.Error("not closing any gap: a WAL of this directory is damaged");
  } else if (o.close) {
    if (const int rc = CloseGaps(o, cluster, nodes, output, &written); rc >= 0) return rc;
    if (!o.dry_run && !Scan(inputs->nodes, cluster, output, &nodes, &code)) return code;
  }
  size_t open = 0, with = 0, copies = 0;
  for (const auto& n : nodes) {
    for (const auto& c : n.copies) {
      ++copies;
      open += c.gaps.size();
      with += !c.gaps.empty();
    }
  }
  if (!o.quiet) {
    CacheNaming naming;
    naming.names = KnownCaches(*inputs, &naming.ignite);
    fmt::memory_buffer b;
    if (o.json) {
      GapsJson(nodes, open, naming, &b);
      output.err->Write(std::string_view(written.data(), written.size()));
    } else {
      GapsText(nodes, copies, with, open, naming, &b);
      output.out->Write(std::string_view(written.data(), written.size()));
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  if (damaged) return kExitProblems;
  return open > 0 ? kExitProblems : kExitOk;
}

}  // namespace tools
