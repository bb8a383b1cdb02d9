#include "tools/cuts.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>

#include "app/inputs.h"
#include "app/node_summary.h"
#include "libcut/summary_file.h"
#include "libwal/file_io.h"
#include "tools/cut_sources.h"
#include "tools/increments.h"
#include "tools/json_writer.h"
#include "tools/progress.h"
#include "tools/record_format.h"
#include "tools/timeline_svg.h"

namespace tools {
namespace {

// --summary: the summary made, written to FILE (and its resume state beside it), and the
// line saying so.
int PutSummary(const CutsOptions& o, const app::NodeSummary& summary, Output& output) {
  if (wal::Status s = app::WriteSummaryFiles(o.summary_out, summary); !s.ok()) {
    output.Error("{}", s.message());
    return kExitUnreadable;
  }
  const int code = summary.damaged ? kExitProblems : kExitOk;
  if (o.quiet) return code;
  const cut::NodeIndex& index = summary.index;
  fmt::memory_buffer b;
  if (o.json) {
    JsonWriter j(&b);
    j.BeginObject().Field("schema", 1).Field("node", index.node).Field("cuts", summary.cuts);
    j.Field("records", index.records).Field("summary", o.summary_out);
    j.Field("format", o.summary_json ? "json" : "binary");
    if (o.append) j.Field("records_read", summary.records_read);
    j.EndObject();
    b.push_back('\n');
  } else if (o.append) {
    fmt::format_to(std::back_inserter(b), "wrote the summary of {} ({} cuts, {} records; {} read now) to {}\n",
                   index.node, summary.cuts, index.records, summary.records_read, o.summary_out);
  } else {
    fmt::format_to(std::back_inserter(b), "wrote the summary of {} ({} cuts, {} records) to {}\n", index.node,
                   summary.cuts, index.records, o.summary_out);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return code;
}

cut::SummaryFormat FormatOf(const CutsOptions& o) {
  return o.summary_json ? cut::SummaryFormat::kJson : cut::SummaryFormat::kBinary;
}

// An output file this command replaces (--summary, its .resume, --svg) must be one it
// wrote before, or empty: a path mistyped onto another file is refused, not clobbered.
// Looked at before any WAL is read.
bool Replaceable(const std::string& path, const char* what, bool (*ours)(std::string_view head), Output& output) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return true;  // a new file (or a path the write will report)
  if (S_ISREG(st.st_mode) && st.st_size == 0) return true;
  if (S_ISREG(st.st_mode)) {
    auto head = wal::ReadFilePrefix(path, 512);
    if (head.ok() && ours(*head)) return true;
  }
  output.Error("\"{}\" exists and is not {}: not replaced (remove it, or choose another file)", path, what);
  return false;
}

bool LooksLikeSvg(std::string_view head) {
  return head.starts_with("<?xml") && head.find("<svg") != std::string_view::npos;
}

// The one node --summary writes of: kExitOk, or the exit code (said).
int OneNode(const CutsOptions& o, Output& output, app::WalInputs* inputs) {
  int code = kExitOk;
  if (!ResolveNodes(o.paths, output, inputs, &code)) return code;
  if (inputs->nodes.size() != 1) {
    output.Error("--summary writes one node's summary: give one node directory, not {} nodes", inputs->nodes.size());
    return kExitUsage;
  }
  return kExitOk;
}

// --summary FILE: the node's WAL read whole, with an Ignite node's kept increments.
int WholeSummary(const CutsOptions& o, Output& output) {
  app::WalInputs inputs;
  if (int code = OneNode(o, output, &inputs); code != kExitOk) return code;
  app::NodeSummary summary;
  {
    Progress progress = WalProgress(output, "finding the cuts", inputs.nodes);
    summary = app::SummarizeNode(inputs.nodes[0], FormatOf(o));
    PrintReadErrors(summary.index, output);
  }
  return PutSummary(o, summary, output);
}

// --summary FILE --append: resumes the reading that wrote FILE where it stopped (before
// the segment that was then the last), so only the new WAL and that segment are read,
// and FILE's cut frames before that point are copied.
int AppendSummary(const CutsOptions& o, Output& output) {
  app::WalInputs inputs;
  if (int code = OneNode(o, output, &inputs); code != kExitOk) return code;
  auto summary = app::AppendToSummary(inputs.nodes[0], o.summary_out, FormatOf(o));
  if (summary.ok() && !summary->whole_because.empty()) {
    output.Warning("{}: {}; writing the summary whole", o.summary_out, summary->whole_because);
  }
  if (!summary.ok()) {
    output.Error("{}", summary.status().message());
    return kExitUnreadable;
  }
  if (!summary->index.open_error.empty()) {
    output.Error("{}: {}", summary->index.node, summary->index.open_error);
  } else {
    PrintReadErrors(summary->index, output);
  }
  return PutSummary(o, *summary, output);
}

// --svg: the timeline of the cut named, or of the latest consistent one.
int DrawTimeline(const CutsOptions& o, const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report,
                 Output& output) {
  size_t chosen = report.cuts.size();
  int code = kExitOk;
  if (o.cut) {
    if (!SelectCut(report, *o.cut, output, &chosen, &code)) return code;
  } else {
    for (size_t i = 0; i < report.cuts.size(); ++i) {
      if (report.cuts[i].status == cut::CutStatus::kConsistent) chosen = i;
    }
    if (chosen == report.cuts.size() && !report.cuts.empty()) chosen = report.cuts.size() - 1;
  }
  if (chosen == report.cuts.size()) {
    output.Error("no cut to draw");
    return kExitProblems;
  }
  auto inputs = app::ResolveWalInputs(o.paths);
  std::vector<wal::WalLocation> dirs;
  for (const auto& in : inputs->nodes) dirs.push_back(in.wal_dir);
  TimelineOptions to;
  to.axis_offset = o.axis_offset;
  to.from = o.from;
  to.to = o.to;
  auto svg = RenderTimeline(indexes, dirs, report.cuts[chosen], to);
  if (!svg.ok()) {
    output.Error("{}", svg.status().message());
    return kExitUnreadable;
  }
  wal::Status s = wal::WriteFileAtomically(o.svg_out, *svg, false);
  if (!s.ok()) {
    output.Error("{}", s.message());
    return kExitUnreadable;
  }
  return kExitOk;
}

void PointerOrNull(JsonWriter& j, const char* key, bool has, const wal::Pointer& p) {
  j.Key(key);
  if (has) {
    j.String(p.ToString());
  } else {
    j.Null();
  }
}

void CutsJson(const cut::ClusterReport& report, const CutListing& l, fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Key("cuts").BeginArray();
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    j.BeginObject().Field("id", c.id.ToString()).Key("increment");
    if (c.increment) {
      j.Uint(*c.increment);
    } else {
      j.Null();
    }
    j.Field("status", cut::CutStatusName(c.status)).Field("base", c.base).Field("reason", c.reason);
    j.Field("start_ts", c.start_ts).Field("finish_ts", c.finish_ts).Key("nodes").BeginArray();
    for (const auto& n : c.nodes) {
      j.BeginObject().Field("node", n.node);
      PointerOrNull(j, "start", n.has_start, n.start);
      PointerOrNull(j, "finish", n.has_finish, n.finish);
      j.Field("before", n.before).Field("after", n.after).EndObject();
    }
    j.EndArray().Key("window");
    if (i < l.windows.size() && l.windows[i]) {
      const app::IncrementWindow& w = *l.windows[i];
      j.BeginObject();
      if (w.to_ts != 0) {
        j.Field("from_ts", w.from_ts).Field("to_ts", w.to_ts);
      } else {
        j.Key("from_ts").Null().Key("to_ts").Null();
      }
      j.Field("records", w.records);
      j.Field("bytes", w.bytes).Field("commits", w.commits).Field("before_commits", w.before_commits).EndObject();
    } else {
      j.Null();
    }
    PutRestorable(j, l.restorable ? &(*l.restorable)[i] : nullptr);
    j.EndObject();
  }
  j.EndArray().EndObject();
  b->push_back('\n');
}

void CutsText(const cut::ClusterReport& report, const CutListing& l, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    fmt::format_to(it, "{}\n", CutHeadline(c));
    fmt::format_to(it, "  started ");
    AppendTime(b, c.start_ts);
    fmt::format_to(it, " finished ");
    AppendTime(b, c.finish_ts);
    fmt::format_to(it, "\n");
    for (const auto& n : c.nodes) {
      fmt::format_to(it, "  {:<12} start {:<14} finish {:<14} before {:>5} after {:>5}\n", n.node,
                     n.has_start ? n.start.ToString() : "-", n.has_finish ? n.finish.ToString() : "-", n.before,
                     n.after);
    }
    if (i < l.windows.size() && l.windows[i]) {
      const app::IncrementWindow& w = *l.windows[i];
      fmt::format_to(it, "  increment");
      if (w.to_ts != 0) {
        fmt::format_to(it, " from ");
        if (w.from_ts != 0)
          AppendTime(b, w.from_ts);
        else
          AppendTimestamp(b, 0);  // the simulator's first base snapshot
        fmt::format_to(it, " to ");
        AppendTime(b, w.to_ts);
      }
      fmt::format_to(it, ": {} records, {} of WAL, {} commits; restoring it applies {} commits more than the {}",
                     w.records, FormatBytes(w.bytes), w.commits, w.before_commits,
                     c.increment.value_or(0) == 1 ? "base snapshot" : "increment before");
      if (l.restorable) {
        const app::Restorable& r = (*l.restorable)[i];
        fmt::format_to(it, "; {}", r.ok ? "restorable " + r.how : "not restorable: " + r.why);
      }
      fmt::format_to(it, "\n");
    }
  }
  size_t consistent = 0;
  for (const auto& c : report.cuts) consistent += c.status == cut::CutStatus::kConsistent;
  fmt::format_to(it, "{} cut(s), {} consistent\n", report.cuts.size(), consistent);
}

}  // namespace

bool ListCuts(const std::vector<std::string>& paths, Output& output, CutListing* out, int* code) {
  // Cut by cut, in bounded memory, each record counted on the way.
  auto resolved = app::ResolveWalInputs(paths);
  auto tally = std::make_shared<app::WalTally>(resolved.ok() ? resolved->nodes.size() : 0);
  WalCheck how;
  how.tap = [tally](size_t i, const app::WalInput&) { return tally->Tap(i); };
  cut::StreamedCluster streamed;
  if (!CheckFromWal(paths, how, output, &streamed, code, &out->inputs)) return false;
  out->report = std::move(streamed.report);
  PrintNodeProblems(out->report, output);
  if (!InInputOrder(out->inputs, std::move(streamed.nodes), output, &out->indexes, code)) return false;
  std::map<std::string, size_t> node_of;
  for (size_t i = 0; i < out->inputs.nodes.size(); ++i) node_of[out->inputs.nodes[i].node] = i;
  if (resolved.ok() && out->inputs.nodes.size() == resolved->nodes.size()) {
    out->windows = app::IncrementWindows(out->report, out->indexes, *tally, node_of);
  }
  out->restorable =
      app::RestorableCuts(paths.size() == 1 ? paths[0] : std::string(), out->inputs, out->indexes, out->report);
  return true;
}

int RunCuts(const CutsOptions& o, Output& output) {
  int code = kExitOk;
  cut::ClusterReport report;
  CutListing listing;
  if (!o.summary_out.empty()) {
    if (!Replaceable(o.summary_out, "a node summary", cut::LooksLikeSummary, output)) return kExitUsage;
    if (o.append &&
        !Replaceable(o.summary_out + ".resume", "a summary's resume state", cut::LooksLikeResumeState, output)) {
      return kExitUsage;
    }
  }
  if (!o.svg_out.empty() && !Replaceable(o.svg_out, "an SVG picture", LooksLikeSvg, output)) return kExitUsage;
  if (!o.summary_out.empty()) return o.append ? AppendSummary(o, output) : WholeSummary(o, output);
  if (o.svg_out.empty()) {
    if (!ListCuts(o.paths, output, &listing, &code)) return code;
    report = std::move(listing.report);
  } else {
    std::vector<cut::NodeIndex> indexes;
    std::optional<cut::ClusterInfo> cluster;
    std::optional<std::vector<cut::NodeKept>> kept;
    if (!LoadIndexesFromWal(o.paths, output, &indexes, &cluster, &code, &kept)) return code;
    report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr, kept ? &*kept : nullptr);
    if (int drawn = DrawTimeline(o, indexes, report, output); drawn != kExitOk) return drawn;
  }
  fmt::memory_buffer b;
  if (o.quiet) {
  } else if (o.json) {
    CutsJson(report, listing, &b);
  } else {
    CutsText(report, listing, &b);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return report.problems.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
