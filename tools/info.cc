#include "tools/info.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "app/holdings.h"
#include "app/inputs.h"
#include "app/retention.h"
#include "libwal/segment_file.h"
#include "tools/cut_sources.h"
#include "tools/cuts.h"
#include "tools/json_writer.h"
#include "tools/prune.h"
#include "tools/record_format.h"

namespace tools {
namespace {

struct NodeWal {
  std::string node;
  uint64_t files = 0, bytes = 0;
};

// Each node's WAL files and bytes, as listed for reading.
std::vector<NodeWal> WalSizes(const app::WalInputs& inputs) {
  std::vector<NodeWal> out;
  for (const auto& in : inputs.nodes) {
    NodeWal n;
    n.node = in.node;
    std::vector<wal::SegmentFile> files = in.files;
    if (!in.wal_dir.empty()) {
      auto listed = wal::ListSegments(in.wal_dir);
      if (listed.ok()) files = std::move(listed).value();
    }
    for (const auto& f : files) {
      struct stat st {};
      if (::stat(f.path.c_str(), &st) == 0) n.bytes += static_cast<uint64_t>(st.st_size);
      ++n.files;
    }
    out.push_back(std::move(n));
  }
  return out;
}

// What Ignite's own restore of an increment needs: the full snapshot on every node of its
// baseline, and every increment up to this one, metadata and WAL, on each of them.
struct IgniteNeeds {
  bool ok = true;
  std::vector<std::string> lacking;
};

IgniteNeeds IgniteRestoreNeeds(const app::SnapshotHoldings& h, uint32_t index) {
  IgniteNeeds r;
  for (const auto& m : h.missing)
    r.lacking.push_back(fmt::format("{}'s files (not given, or without the snapshot)", m));
  for (uint32_t i = 1; i <= index; ++i) {
    auto k = std::find_if(h.increments.begin(), h.increments.end(),
                          [&](const app::IncrementHoldings& x) { return x.index == i; });
    for (const auto& node : h.nodes) {
      const bool meta =
          k != h.increments.end() && std::find(k->with_meta.begin(), k->with_meta.end(), node) != k->with_meta.end();
      const bool wal =
          k != h.increments.end() && std::find(k->with_wal.begin(), k->with_wal.end(), node) != k->with_wal.end();
      if (!meta)
        r.lacking.push_back(fmt::format("increment {}'s metadata on {}", i, node));
      else if (!wal)
        r.lacking.push_back(fmt::format("increment {}'s WAL on {}", i, node));
    }
  }
  r.ok = r.lacking.empty();
  return r;
}

// One cut as info shows it.
struct CutLine {
  size_t cut = 0;  // in the report
  uint64_t first_segment = 0, last_segment = 0;
  bool has_range = false;
  std::optional<IgniteNeeds> ignite;
};

struct Group {  // the cuts of one base snapshot (or of none)
  std::string base;
  const app::SnapshotHoldings* holdings = nullptr;
  std::vector<CutLine> cuts;
  std::vector<const app::IncrementHoldings*> unseen;  // kept by Ignite, with no cut in the WAL read
};

// The segments of a cut's increment: from where each node's range begins (the previous
// consistent cut's Finish record of the same base, or the base snapshot's record) to the
// last Finish record.
void RangeOf(const CutListing& l, size_t i, CutLine* line) {
  const cut::CutReport& c = l.report.cuts[i];
  const cut::CutReport* prev = nullptr;
  for (size_t k = i; k-- > 0;) {
    const auto& p = l.report.cuts[k];
    if (p.status == cut::CutStatus::kConsistent && p.base == c.base) {
      prev = &p;
      break;
    }
  }
  bool any = false;
  for (const auto& row : c.nodes) {
    if (!row.has_finish) continue;
    std::optional<uint64_t> from;
    if (prev != nullptr) {
      for (const auto& r : prev->nodes) {
        if (r.node == row.node && r.has_finish) from = r.finish.segment;
      }
    } else {
      for (const auto& idx : l.indexes) {
        if (idx.node != row.node) continue;
        for (const auto& s : idx.snapshots) {
          if (s.name == c.base && s.at < row.finish) from = s.at.segment;
        }
      }
    }
    const uint64_t first = from.value_or(row.has_start ? row.start.segment : row.finish.segment);
    line->first_segment = any ? std::min(line->first_segment, first) : first;
    line->last_segment = any ? std::max(line->last_segment, row.finish.segment) : row.finish.segment;
    any = true;
  }
  line->has_range = any;
}

std::vector<Group> Grouped(const CutListing& l, const std::vector<app::SnapshotHoldings>& holdings, bool ignite) {
  std::vector<Group> groups;
  auto group = [&](const std::string& base) -> Group& {
    for (auto& g : groups) {
      if (g.base == base) return g;
    }
    Group g;
    g.base = base;
    for (const auto& h : holdings) {
      if (!base.empty() && h.name == base) g.holdings = &h;
    }
    groups.push_back(std::move(g));
    return groups.back();
  };
  for (const auto& h : holdings) group(h.name);
  for (const auto& idx : l.indexes) {
    for (const auto& s : idx.snapshots) group(s.name);
  }
  for (size_t i = 0; i < l.report.cuts.size(); ++i) {
    const auto& c = l.report.cuts[i];
    CutLine line;
    line.cut = i;
    RangeOf(l, i, &line);
    Group& g = group(c.base);
    if (ignite && g.holdings != nullptr && c.increment) line.ignite = IgniteRestoreNeeds(*g.holdings, *c.increment);
    g.cuts.push_back(std::move(line));
  }
  for (auto& g : groups) {
    if (g.holdings == nullptr) continue;
    for (const auto& k : g.holdings->increments) {
      bool seen = false;
      for (const auto& line : g.cuts) seen |= l.report.cuts[line.cut].id.ToString() == k.request_id;
      if (!seen) g.unseen.push_back(&k);
    }
  }
  // A group of no base last (cuts before any base snapshot, or whose base is unknown).
  std::stable_partition(groups.begin(), groups.end(), [](const Group& g) { return !g.base.empty(); });
  groups.erase(
      std::remove_if(groups.begin(), groups.end(), [](const Group& g) { return g.base.empty() && g.cuts.empty(); }),
      groups.end());
  return groups;
}

uint64_t BaseTime(const CutListing& l, const Group& g) {
  if (g.holdings != nullptr && g.holdings->time_ms != 0) return g.holdings->time_ms * 1'000'000;
  uint64_t t = 0;
  for (const auto& idx : l.indexes) {
    for (const auto& s : idx.snapshots) {
      if (s.name == g.base) t = std::max(t, s.timestamp);
    }
  }
  return t;
}

// The nodes whose WAL has the base snapshot's record (walcut's base snapshots are found
// there as well as on disk).
std::vector<std::string> WithRecord(const CutListing& l, const std::string& base) {
  std::vector<std::string> out;
  for (const auto& idx : l.indexes) {
    for (const auto& s : idx.snapshots) {
      if (s.name == base) {
        out.push_back(idx.node);
        break;
      }
    }
  }
  return out;
}

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

void Text(const CutListing& l, bool ignite, const std::vector<NodeWal>& wals, const std::vector<Group>& groups,
          const std::optional<app::PruneEstimate>& prune, fmt::memory_buffer* b) {
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
      if (const uint64_t t = BaseTime(l, g); t != 0) fmt::format_to(it, ", taken {}", Time(t));
      const app::SnapshotHoldings* h = g.holdings;
      if (h != nullptr) {
        const size_t all = h->nodes.size() + h->missing.size();
        fmt::format_to(it, ": on {} of {} node(s), {} in {} {}file(s)", h->nodes.size(), all, FormatBytes(h->bytes),
                       h->files, ignite ? "page " : "");
        if (!h->missing.empty()) fmt::format_to(it, "; missing on {}", Joined(h->missing));
      } else {
        fmt::format_to(it, ": no files of it found (its record is in the WAL of {})", Joined(WithRecord(l, g.base)));
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

void Json(const CutListing& l, bool ignite, const std::vector<NodeWal>& wals, const std::vector<Group>& groups,
          const std::optional<app::PruneEstimate>& prune, fmt::memory_buffer* b) {
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
    j.Field("time_ns", BaseTime(l, g));
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
    for (const auto& n : WithRecord(l, g.base)) j.String(n);
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
  const std::vector<NodeWal> wals = WalSizes(l.inputs);
  const std::vector<Group> groups = Grouped(l, holdings, ignite);
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
