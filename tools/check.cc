#include "tools/check.h"

#include <iterator>

#include "app/inputs.h"
#include "tools/cut_sources.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

// The report of the cuts checked (`chosen`) and of the nodes not read whole.
void CheckJson(const cut::ClusterReport& report, const std::vector<size_t>& chosen, bool bad, fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("ok", !bad).Key("cuts").BeginArray();
  for (size_t i : chosen) {
    const auto& c = report.cuts[i];
    j.BeginObject().Field("id", c.id.ToString()).Field("status", cut::CutStatusName(c.status)).Key("increment");
    if (c.increment) {
      j.Uint(*c.increment);
    } else {
      j.Null();
    }
    j.Field("reason", c.reason).Key("violations").BeginArray();
    for (const auto& v : c.violations) WriteViolation(j, v);
    j.EndArray().EndObject();
  }
  j.EndArray().Field("nodes_read", report.nodes).Field("membership_known", report.membership_known);
  j.Key("problems").BeginArray();
  for (const auto& p : report.problems) {
    j.BeginObject().Field("node", p.node).Field("kind", cut::KindName(p.kind)).Field("detail", p.detail).EndObject();
  }
  j.EndArray().EndObject();
  b->push_back('\n');
}

void CheckText(const cut::ClusterReport& report, const std::vector<size_t>& chosen, bool bad, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  size_t consistent = 0;
  for (size_t i : chosen) {
    const auto& c = report.cuts[i];
    consistent += c.status == cut::CutStatus::kConsistent;
    fmt::format_to(it, "{}\n", CutHeadline(c));
    for (const auto& v : c.violations) {
      std::string nodes;
      for (const auto& n : v.nodes) nodes += (nodes.empty() ? "" : ",") + n;
      fmt::format_to(it, "  {}{} [{}]: {}\n", cut::KindName(v.kind), v.xid ? " tx " + v.xid->ToString() : "", nodes,
                     v.detail);
    }
  }
  std::string nodes;
  if (!report.problems.empty()) nodes = fmt::format(" ({} node(s) not read whole)", report.problems.size());
  if (!report.membership_known) {
    nodes += fmt::format(
        " ({} node(s) read; which nodes the cluster has is not known: give its cluster.json with "
        "--cluster, or its whole directory)",
        report.nodes);
  }
  fmt::format_to(it, "{} cut(s) checked, {} consistent: {}{}\n", chosen.size(), consistent,
                 bad ? "PROBLEMS FOUND" : "ok", nodes);
}

// The cut that is increment `n` of `snapshot` (empty: of the full snapshot taken last,
// by the Ignite nodes' metadata, or else the latest base a consistent cut has).
bool SelectIncrement(const cut::ClusterReport& report, const app::WalInputs& inputs, const std::string& snapshot,
                     uint32_t n, Output& output, size_t* index, int* code) {
  std::string base = snapshot;
  if (base.empty()) {
    if (auto latest = app::LatestIncrement(inputs.nodes, ""); latest) base = latest->first;
  }
  if (base.empty()) {
    for (const auto& c : report.cuts) {
      if (c.status == cut::CutStatus::kConsistent) base = c.base;
    }
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    if (report.cuts[i].increment == n && report.cuts[i].base == base) {
      *index = i;
      return true;
    }
  }
  output.Error("no cut is increment {} of \"{}\"", n, base);
  output.Hint("\"walcut cuts DIR\" lists the cuts and their statuses");
  *code = kExitProblems;
  return false;
}

}  // namespace

int RunCheck(const CheckOptions& o, Output& output) {
  int code = kExitOk;
  cut::ClusterReport report;
  app::WalInputs inputs;
  if (!o.summaries.empty()) {
    std::optional<cut::ClusterInfo> cluster;
    if (!o.cluster_file.empty() && !LoadClusterFile(o.cluster_file, output, &cluster, &code)) return code;
    if (!CheckFromSummaries(o.summaries, cluster ? &*cluster : nullptr, output, &report, &code)) return code;
  } else {
    cut::StreamedCluster streamed;
    WalCheck how;
    how.cluster_file = o.cluster_file;
    how.membership_from_above = true;
    if (o.increment) how.increment = std::make_pair(o.snapshot, *o.increment);
    if (o.cut) how.increment_of_cut = *o.cut;
    if (!CheckFromWal(o.paths, how, output, &streamed, &code, &inputs)) return code;
    report = std::move(streamed.report);
  }
  PrintNodeProblems(report, output);
  std::vector<size_t> chosen;
  if (o.cut) {
    size_t i = 0;
    if (!SelectCut(report, *o.cut, output, &i, &code)) return code;
    chosen.push_back(i);
  } else if (o.increment) {
    size_t i = 0;
    if (!SelectIncrement(report, inputs, o.snapshot, *o.increment, output, &i, &code)) return code;
    chosen.push_back(i);
  } else {
    for (size_t i = 0; i < report.cuts.size(); ++i) chosen.push_back(i);
  }
  // A node not read whole fails the check, whatever its cuts.
  bool bad = !report.problems.empty();
  for (size_t i : chosen) bad = bad || cut::FailsCheck(report.cuts[i], o.cut.has_value());
  fmt::memory_buffer b;
  if (o.quiet) {
  } else if (o.json) {
    CheckJson(report, chosen, bad, &b);
  } else {
    CheckText(report, chosen, bad, &b);
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return bad ? kExitProblems : kExitOk;
}

}  // namespace tools
