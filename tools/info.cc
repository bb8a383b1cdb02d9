#include "tools/info.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "app/cut_info.h"
#include "app/holdings.h"
#include "app/inputs.h"
#include "app/retention.h"
#include "tools/cut_sources.h"
#include "tools/cuts.h"
#include "tools/json_writer.h"
#include "tools/prune.h"
#include "tools/record_format.h"

namespace tools {
namespace {

std::string Joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string Time(uint64_t ns) {
  fmt::memory_buffer b;
  AppendTime(&b, ns);
  return std::string(b.data(), b.size());
}

void Text(const CutListing& l, bool ignite, const std::vector<app::NodeWal>& wals,
          const std::vector<app::CutGroup>& groups, const std::optional<app::PruneEstimate>& prune,
          fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  uint64_t files = 0, bytes = 0;
  std::vector<std::string> names;
  for (const auto& w : wals) {
    files += w.files;
    bytes += w.bytes;
    names.push_back(w.node);
  }
  fmt::format_to(it, "{}, {} node(s) ({}): {} of WAL in {} file(s)\n", ignite ? "Apache Ignite" : "walcut cluster",
                 wals.size(), Joined(names), FormatBytes(bytes), files);
  for (const auto& p : l.report.problems) {
    fmt::format_to(it, "  node {}: {}: {}\n", p.node, cut::KindName(p.kind), p.detail);
  }
  for (const auto& g : groups) {
    if (g.base.empty()) {
      fmt::format_to(it, "cuts of no base snapshot\n");
    } else {
      fmt::format_to(it, "{} \"{}\"", ignite ? "full snapshot" : "base snapshot", g.base);
      if (const uint64_t t = app::BaseTime(l.indexes, g); t != 0) fmt::format_to(it, ", taken {}", Time(t));
      const app::SnapshotHoldings* h = g.holdings;
      if (h != nullptr) {
        const size_t all = h->nodes.size() + h->missing.size();
        fmt::format_to(it, ": on {} of {} node(s), {} in {} {}file(s)", h->nodes.size(), all, FormatBytes(h->bytes),
                       h->files, ignite ? "page " : "");
        if (!h->missing.empty()) fmt::format_to(it, "; missing on {}", Joined(h->missing));
      } else {
        fmt::format_to(it, ": no files of it found (its record is in the WAL of {})",
                       Joined(app::NodesWithRecord(l.indexes, g.base)));
      }
      fmt::format_to(it, "\n");
    }
    for (const auto& line : g.cuts) {
      const cut::CutReport& c = l.report.cuts[line.cut];
      if (c.increment) {
        fmt::format_to(it, "  increment {}: {}", *c.increment, cut::CutStatusName(c.status));
      } else {
        fmt::format_to(it, "  cut {}: {}", c.id.ToString(), cut::CutStatusName(c.status));
      }
      if (!c.reason.empty()) fmt::format_to(it, " ({})", c.reason);
      if (c.start_ts != 0) fmt::format_to(it, ", started {}", Time(c.start_ts));
      if (c.finish_ts != 0) fmt::format_to(it, ", finished {}", Time(c.finish_ts));
      fmt::format_to(it, "\n");
      if (line.has_range) {
        fmt::format_to(it, "      WAL: segments {} to {}", line.first_segment, line.last_segment);
        if (line.cut < l.windows.size() && l.windows[line.cut]) {
          fmt::format_to(it, ", {} since the {}", FormatBytes(l.windows[line.cut]->bytes),
                         c.increment.value_or(0) == 1 ? "snapshot" : "increment before");
        }
        fmt::format_to(it, "\n");
      }
      if (c.status != cut::CutStatus::kConsistent) continue;
      if (l.restorable) {
        const app::Restorable& r = (*l.restorable)[line.cut];
        fmt::format_to(it, "      walcut: {}\n", r.ok ? "restorable " + r.how : "not restorable: " + r.why);
      }
      if (line.ignite) {
        fmt::format_to(it, "      Ignite's restore: {}\n",
                       line.ignite->ok ? "has what it needs (the full snapshot and the increments' metadata and WAL "
                                         "on every node)"
                                       : "lacks " + Joined(line.ignite->lacking));
      }
    }
    for (const auto* k : g.unseen) {
      fmt::format_to(it, "  increment {}: kept by Ignite (cut {}), but no record of it in the WAL read\n", k->index,
                     k->request_id);
    }
  }
  if (prune) {
    fmt::format_to(it, "prune, keeping every restorable cut: {} {}file(s), {}{}{}\n", prune->files,
                   ignite ? "archive " : "segment ", FormatBytes(prune->bytes),
                   ignite ? " no increment needs (Ignite removes its archive itself)" : " would be freed",
                   prune->leaves_restorable ? "" : " (and some cut would no longer be restorable)");
  }
  size_t consistent = 0;
  for (const auto& c : l.report.cuts) consistent += c.status == cut::CutStatus::kConsistent;
  fmt::format_to(it, "{} cut(s), {} consistent\n", l.report.cuts.size(), consistent);
}

void Json(const CutListing& l, bool ignite, const std::vector<app::NodeWal>& wals,
          const std::vector<app::CutGroup>& groups, const std::optional<app::PruneEstimate>& prune,
          fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("format", ignite ? "ignite" : "walcut").Key("nodes").BeginArray();
  for (const auto& w : wals) {
    j.BeginObject().Field("node", w.node).Field("wal_files", w.files).Field("wal_bytes", w.bytes).EndObject();
  }
  j.EndArray().Key("problems").BeginArray();
  for (const auto& p : l.report.problems) {
    j.BeginObject().Field("node", p.node).Field("kind", cut::KindName(p.kind)).Field("detail", p.detail).EndObject();
  }
  j.EndArray().Key("snapshots").BeginArray();
  for (const auto& g : groups) {
    j.BeginObject().Key("name");
    if (g.base.empty()) {
      j.Null();
    } else {
      j.String(g.base);
    }
    j.Field("time_ns", app::BaseTime(l.indexes, g));
    const app::SnapshotHoldings* h = g.holdings;
    j.Key("nodes").BeginArray();
    if (h != nullptr) {
      for (const auto& n : h->nodes) j.String(n);
    }
    j.EndArray().Key("missing").BeginArray();
    if (h != nullptr) {
      for (const auto& n : h->missing) j.String(n);
    }
    j.EndArray().Key("record_on").BeginArray();
    for (const auto& n : app::NodesWithRecord(l.indexes, g.base)) j.String(n);
    j.EndArray().Field("files", h != nullptr ? h->files : 0).Field("bytes", h != nullptr ? h->bytes : 0);
    j.Key("cuts").BeginArray();
    for (const auto& line : g.cuts) {
      const cut::CutReport& c = l.report.cuts[line.cut];
      j.BeginObject().Field("id", c.id.ToString()).Key("increment");
      if (c.increment) {
        j.Uint(*c.increment);
      } else {
        j.Null();
      }
      j.Field("status", cut::CutStatusName(c.status)).Field("reason", c.reason);
      j.Field("start_ts", c.start_ts).Field("finish_ts", c.finish_ts);
      j.Key("first_segment");
      if (line.has_range) {
        j.Uint(line.first_segment).Field("last_segment", line.last_segment);
      } else {
        j.Null().Key("last_segment").Null();
      }
      const bool window = line.cut < l.windows.size() && l.windows[line.cut].has_value();
      j.Field("wal_bytes", window ? l.windows[line.cut]->bytes : 0);
      j.Field("records", window ? l.windows[line.cut]->records : 0);
      PutRestorable(j, l.restorable && c.status == cut::CutStatus::kConsistent ? &(*l.restorable)[line.cut] : nullptr);
      j.Key("ignite_restore");
      if (line.ignite) {
        j.BeginObject().Field("ok", line.ignite->ok).Key("lacking").BeginArray();
        for (const auto& x : line.ignite->lacking) j.String(x);
        j.EndArray().EndObject();
      } else {
        j.Null();
      }
      j.EndObject();
    }
    j.EndArray().Key("kept_without_cut").BeginArray();
    for (const auto* k : g.unseen) {
      j.BeginObject().Field("increment", k->index).Field("id", k->request_id).EndObject();
    }
    j.EndArray().EndObject();
  }
  j.EndArray().Key("prune");
  if (prune) {
    j.BeginObject().Field("files", prune->files).Field("bytes", prune->bytes);
    j.Field("leaves_restorable", prune->leaves_restorable).EndObject();
  } else {
    j.Null();
  }
  j.EndObject();
  b->push_back('\n');
}

}  // namespace

int RunInfo(const InfoOptions& o, Output& output) {
  int code = kExitOk;
  CutListing l;
  if (!ListCuts(o.paths, output, &l, &code)) return code;
  bool ignite = false;
  for (const auto& in : l.inputs.nodes) ignite |= app::IsIgniteInput(in);
  const std::vector<app::SnapshotHoldings> holdings = app::HoldingsOf(l.inputs);
  const std::vector<app::NodeWal> wals = app::WalSizes(l.inputs);
  const std::vector<app::CutGroup> groups = app::GroupedByBase(l.report, l.indexes, holdings, ignite);
  const std::optional<app::PruneEstimate> prune =
      app::EstimatePrune(o.paths.size() == 1 ? o.paths[0] : std::string(), l.inputs, l.indexes, l.report);
  if (!o.quiet) {
    fmt::memory_buffer b;
    if (o.json) {
      Json(l, ignite, wals, groups, prune, &b);
    } else {
      Text(l, ignite, wals, groups, prune, &b);
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return l.report.problems.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
