#include "tools/cuts.h"

#include <iterator>

#include "libcut/summary_file.h"
#include "libwal/wal_writer.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"
#include "tools/inputs.h"
#include "tools/record_format.h"
#include "tools/timeline_svg.h"

namespace tools {
namespace {

std::string PtrOrNull(bool has, const wal::Pointer& p) {
  return has ? fmt::format("\"{}\"", p.ToString()) : std::string("null");
}

}  // namespace

int RunCuts(const CutsOptions& o, Output& output) {
  std::vector<cut::NodeIndex> indexes;
  std::optional<cut::ClusterInfo> cluster;
  int code = kExitOk;
  cut::ClusterReport report;
  bool damaged = false;
  if (o.summary_out.empty() && o.svg_out.empty()) {
    // Listing only: cut by cut, in bounded memory.
    cut::StreamedCluster streamed;
    if (!CheckFromWal(o.paths, "", output, &streamed, &code)) return code;
    report = std::move(streamed.report);
    PrintNodeProblems(report, output);
    damaged = !report.problems.empty();
  } else {
    if (!LoadIndexesFromWal(o.paths, output, &indexes, &cluster, &code)) return code;
    for (const auto& n : indexes) damaged |= !n.read_errors.empty() || !n.open_error.empty() || n.records == 0;
  }
  if (!o.summary_out.empty()) {
    if (indexes.size() != 1) {
      output.Error("--summary writes one node's summary: give one node directory, not {} nodes", indexes.size());
      return kExitUsage;
    }
    wal::Status s = wal::WriteFileAtomically(o.summary_out, cut::EncodeSummary(indexes[0]));
    if (!s.ok()) {
      output.Error("{}", s.message());
      return kExitUnreadable;
    }
    if (o.quiet) {
    } else if (o.json) {
      fmt::memory_buffer b;
      fmt::format_to(std::back_inserter(b), "{{\"schema\":1,\"node\":");
      AppendJsonString(&b, indexes[0].node);
      fmt::format_to(std::back_inserter(b), ",\"cuts\":{},\"records\":{},\"summary\":", indexes[0].cuts.size(),
                     indexes[0].records);
      AppendJsonString(&b, o.summary_out);
      fmt::format_to(std::back_inserter(b), "}}\n");
      output.out->Write(std::string_view(b.data(), b.size()));
    } else if (!o.quiet) {
      output.out->Write(fmt::format("wrote the summary of {} ({} cuts, {} records) to {}\n", indexes[0].node,
                                    indexes[0].cuts.size(), indexes[0].records, o.summary_out));
    }
    return damaged ? kExitProblems : kExitOk;
  }
  if (!o.svg_out.empty()) report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr);
  if (!o.svg_out.empty()) {
    size_t chosen = report.cuts.size();
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
    auto inputs = ResolveWalInputs(o.paths);
    std::vector<std::string> dirs;
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
  }
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  if (o.quiet) {
  } else if (o.json) {
    fmt::format_to(it, "{{\"schema\":1,\"cuts\":[");
    for (size_t i = 0; i < report.cuts.size(); ++i) {
      const auto& c = report.cuts[i];
      fmt::format_to(it, "{}{{\"id\":\"{}\",\"increment\":{},\"status\":\"{}\",\"base\":", i ? "," : "",
                     c.id.ToString(), c.increment ? std::to_string(*c.increment) : "null",
                     cut::CutStatusName(c.status));
      AppendJsonString(&b, c.base);
      fmt::format_to(it, ",\"reason\":");
      AppendJsonString(&b, c.reason);
      fmt::format_to(it, ",\"start_ts\":{},\"finish_ts\":{},\"nodes\":[", c.start_ts, c.finish_ts);
      for (size_t j = 0; j < c.nodes.size(); ++j) {
        const auto& n = c.nodes[j];
        fmt::format_to(it, "{}{{\"node\":", j ? "," : "");
        AppendJsonString(&b, n.node);
        fmt::format_to(it, ",\"start\":{},\"finish\":{},\"before\":{},\"after\":{}}}",
                       PtrOrNull(n.has_start, n.start), PtrOrNull(n.has_finish, n.finish), n.before, n.after);
      }
      fmt::format_to(it, "]}}");
    }
    fmt::format_to(it, "]}}\n");
  } else if (!o.quiet) {
    for (const auto& c : report.cuts) {
      fmt::format_to(it, "{}\n", CutHeadline(c));
      fmt::format_to(it, "  started ");
      AppendTimestamp(&b, c.start_ts);
      fmt::format_to(it, " finished ");
      AppendTimestamp(&b, c.finish_ts);
      fmt::format_to(it, "\n");
      for (const auto& n : c.nodes) {
        fmt::format_to(it, "  {:<12} start {:<14} finish {:<14} before {:>5} after {:>5}\n", n.node,
                       n.has_start ? n.start.ToString() : "-", n.has_finish ? n.finish.ToString() : "-",
                       n.before, n.after);
      }
    }
    size_t consistent = 0;
    for (const auto& c : report.cuts) consistent += c.status == cut::CutStatus::kConsistent;
    fmt::format_to(it, "{} cut(s), {} consistent\n", report.cuts.size(), consistent);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return damaged ? kExitProblems : kExitOk;
}

int RunCheck(const CheckOptions& o, Output& output) {
  std::vector<cut::NodeIndex> indexes;
  int code = kExitOk;
  cut::ClusterReport report;
  if (!o.summaries.empty()) {
    std::optional<cut::ClusterInfo> cluster;
    if (!o.cluster_file.empty() && !LoadClusterFile(o.cluster_file, output, &cluster, &code)) return code;
    if (!LoadIndexesFromSummaries(o.summaries, output, &indexes, &code)) return code;
    report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr);
  } else {
    cut::StreamedCluster streamed;
    if (!CheckFromWal(o.paths, o.cluster_file, output, &streamed, &code)) return code;
    report = std::move(streamed.report);
  }
  PrintNodeProblems(report, output);
  std::vector<size_t> chosen;
  if (o.cut) {
    size_t i = 0;
    if (!SelectCut(report, *o.cut, output, &i, &code)) return code;
    chosen.push_back(i);
  } else {
    for (size_t i = 0; i < report.cuts.size(); ++i) chosen.push_back(i);
  }
  // A node not read whole fails the check, whatever its cuts.
  bool bad = !report.problems.empty();
  for (size_t i : chosen) bad = bad || cut::FailsCheck(report.cuts[i], o.cut.has_value());
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  if (o.quiet) {
  } else if (o.json) {
    fmt::format_to(it, "{{\"schema\":1,\"ok\":{},\"cuts\":[", bad ? "false" : "true");
    for (size_t k = 0; k < chosen.size(); ++k) {
      const auto& c = report.cuts[chosen[k]];
      fmt::format_to(it, "{}{{\"id\":\"{}\",\"status\":\"{}\",\"increment\":{},\"reason\":", k ? "," : "",
                     c.id.ToString(), cut::CutStatusName(c.status),
                     c.increment ? std::to_string(*c.increment) : "null");
      AppendJsonString(&b, c.reason);
      fmt::format_to(it, ",\"violations\":[");
      for (size_t v = 0; v < c.violations.size(); ++v) {
        if (v) b.push_back(',');
        std::string vj = ViolationJson(c.violations[v]);
        b.append(vj.data(), vj.data() + vj.size());
      }
      fmt::format_to(it, "]}}");
    }
    fmt::format_to(it, "],\"problems\":[");
    for (size_t k = 0; k < report.problems.size(); ++k) {
      const auto& p = report.problems[k];
      fmt::format_to(it, "{}{{\"node\":", k ? "," : "");
      AppendJsonString(&b, p.node);
      fmt::format_to(it, ",\"kind\":\"{}\",\"detail\":", p.kind);
      AppendJsonString(&b, p.detail);
      b.push_back('}');
    }
    fmt::format_to(it, "]}}\n");
  } else if (!o.quiet) {
    size_t consistent = 0;
    for (size_t i : chosen) {
      const auto& c = report.cuts[i];
      consistent += c.status == cut::CutStatus::kConsistent;
      fmt::format_to(it, "{}\n", CutHeadline(c));
      for (const auto& v : c.violations) {
        std::string nodes;
        for (const auto& n : v.nodes) nodes += (nodes.empty() ? "" : ",") + n;
        fmt::format_to(it, "  {}{} [{}]: {}\n", v.kind, v.xid ? " tx " + v.xid->ToString() : "", nodes, v.detail);
      }
    }
    std::string nodes;
    if (!report.problems.empty()) nodes = fmt::format(" ({} node(s) not read whole)", report.problems.size());
    fmt::format_to(it, "{} cut(s) checked, {} consistent: {}{}\n", chosen.size(), consistent,
                   bad ? "PROBLEMS FOUND" : "ok", nodes);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return bad ? kExitProblems : kExitOk;
}

}  // namespace tools
