#include "tools/cut_sources.h"

#include <algorithm>
#include <iterator>
#include <thread>

#include "app/cut_choice.h"
#include "app/inputs.h"
#include "app/summary_check.h"
#include "app/wal_check.h"
#include "tools/escape.h"
#include "tools/progress.h"

namespace tools {

namespace {

// Threads that read the nodes' WALs, taking the nodes in turn: one per core.
size_t ReadingThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace

// The first errors of a node locate the damage; the rest only count.
void PrintReadErrors(const cut::NodeIndex& index, Output& output) {
  if (!index.torn_tail.empty()) output.Warning("{}", index.torn_tail);
  constexpr size_t kShown = 10;
  for (size_t e = 0; e < index.read_errors.size() && e < kShown; ++e) output.Error("{}", index.read_errors[e]);
  if (index.read_errors.size() > kShown) {
    output.Error("{}: {} more read errors not shown", index.node, index.read_errors.size() - kShown);
  }
}

bool ResolveNodes(const std::vector<std::string>& paths, Output& output, app::WalInputs* out, int* code,
                  bool cluster_above) {
  auto inputs = app::ResolveWalInputs(paths, cluster_above);
  if (!inputs.ok()) {
    output.Error("{}", inputs.status().message());
    *code = kExitUnreadable;
    return false;
  }
  for (const auto& in : inputs->nodes) {
    if (in.wal_dir.empty()) {
      output.Error("cut analysis needs node WAL directories, not single segment files (\"{}\")", in.files[0].path);
      *code = kExitUsage;
      return false;
    }
  }
  *out = std::move(inputs).value();
  return true;
}

bool LoadIndexesFromWal(const std::vector<std::string>& paths, Output& output, std::vector<cut::NodeIndex>* out,
                        std::optional<cut::ClusterInfo>* cluster, int* code,
                        std::optional<std::vector<cut::NodeKept>>* kept) {
  app::WalInputs inputs;
  if (!ResolveNodes(paths, output, &inputs, code)) return false;
  Progress progress = WalProgress(output, "finding the cuts", inputs.nodes);
  for (const auto& in : inputs.nodes) {
    auto index = cut::BuildNodeIndex(in.node, in.wal_dir);
    if (!index.ok()) {
      cut::NodeIndex unreadable;
      unreadable.node = in.node;
      unreadable.open_error = index.status().message();
      out->push_back(std::move(unreadable));
      continue;
    }
    PrintReadErrors(*index, output);
    out->push_back(std::move(index).value());
  }
  *cluster = std::move(inputs.cluster);
  if (kept != nullptr) *kept = app::KeptIncrementsOf(inputs.nodes);
  return true;
}

bool LoadClusterFile(const std::string& path, Output& output, std::optional<cut::ClusterInfo>* out, int* code) {
  auto cluster = app::ReadClusterFile(path);
  if (!cluster.ok()) {
    output.Error("{}", cluster.status().message());
    *code = kExitUnreadable;
    return false;
  }
  *out = std::move(cluster).value();
  return true;
}

bool CheckFromWal(const std::vector<std::string>& paths, const WalCheck& how, Output& output, cut::StreamedCluster* out,
                  int* code, app::WalInputs* resolved) {
  app::WalInputs inputs;
  if (!ResolveNodes(paths, output, &inputs, code, how.membership_from_above)) return false;
  if (!how.cluster_file.empty()) {
    if (inputs.cluster && !inputs.cluster_above) {
      output.Error("--cluster: the directory given has a cluster file of its own");
      *code = kExitUsage;
      return false;
    }
    if (!LoadClusterFile(how.cluster_file, output, &inputs.cluster, code)) return false;
  }
  app::WalCheckOptions options;
  options.keep_sets = how.keep_sets;
  options.tap = how.tap;
  options.threads = how.threads != 0 ? how.threads : ReadingThreads();
  options.increment = how.increment;
  options.increment_of_cut = how.increment_of_cut;
  *out = app::CheckWal(&inputs, options, [&](bool again, const std::function<void()>& read) {
    // A second reading says what it is: the first one was to the increment's Finish record.
    Progress progress =
        WalProgress(output, again ? how.progress + " again, each to its end" : how.progress, inputs.nodes);
    read();
  });
  // In the order the nodes were given, as when they are read whole.
  for (const auto& in : inputs.nodes) {
    for (const auto& n : out->nodes) {
      if (n.node == in.node) PrintReadErrors(n, output);
    }
  }
  if (resolved != nullptr) *resolved = std::move(inputs);
  return true;
}

bool InInputOrder(const app::WalInputs& inputs, std::vector<cut::NodeIndex>&& nodes, Output& output,
                  std::vector<cut::NodeIndex>* out, int* code) {
  out->clear();
  for (const auto& in : inputs.nodes) {
    auto n = std::find_if(nodes.begin(), nodes.end(), [&](const cut::NodeIndex& x) { return x.node == in.node; });
    if (n == nodes.end()) {
      output.Error("{}: its WAL was not indexed by the check", in.node);
      *code = kExitUnreadable;
      return false;
    }
    out->push_back(std::move(*n));
    nodes.erase(n);
  }
  return true;
}

bool CheckDir(const std::string& dir, const WalCheck& how, Output& output, DirCuts* out, int* code) {
  return CheckDirs({dir}, how, output, out, code);
}

bool CheckDirs(const std::vector<std::string>& paths, const WalCheck& how, Output& output, DirCuts* out, int* code) {
  cut::StreamedCluster streamed;
  if (!CheckFromWal(paths, how, output, &streamed, code, &out->inputs)) return false;
  if (!InInputOrder(out->inputs, std::move(streamed.nodes), output, &out->indexes, code)) return false;
  out->report = std::move(streamed.report);
  return true;
}

void PrintNodeProblems(const cut::ClusterReport& report, Output& output) {
  for (const auto& p : report.problems) {
    if (p.kind != cut::Kind::kReadErrors) output.Error("{}: {}: {}", p.node, cut::KindName(p.kind), p.detail);
  }
}

bool CheckFromSummaries(const std::vector<std::string>& files, const cut::ClusterInfo* cluster, Output& output,
                        cut::ClusterReport* out, int* code) {
  auto report = app::CheckSummaries(files, cluster);
  if (!report.ok()) {
    output.Error("{}", report.status().message());
    // Two summaries of one node are the user's to mend; anything else could not be read.
    *code = report.status().code() == wal::StatusCode::kAlreadyExists ? kExitUsage : kExitUnreadable;
    return false;
  }
  *out = std::move(report).value();
  return true;
}

bool SelectCut(const cut::ClusterReport& report, const std::string& prefix, Output& output, size_t* index, int* code) {
  auto chosen = app::ChooseCut(report, prefix);
  if (chosen.ok()) {
    *index = *chosen;
    return true;
  }
  output.Error("{}", chosen.status().message());
  if (chosen.status().code() == wal::StatusCode::kNotFound) output.Hint("\"walcut cuts DIR\" lists the cuts");
  *code = kExitUsage;
  return false;
}

std::string CutHeadline(const cut::CutReport& c) {
  std::string s = fmt::format("cut {}: {}", c.id.ToString(), cut::CutStatusName(c.status));
  if (c.increment) s += fmt::format(", increment {} of \"{}\"", *c.increment, c.base);
  if (!c.reason.empty()) s += ": " + c.reason;
  return s;
}

void WriteViolation(JsonWriter& j, const cut::Violation& v) {
  j.BeginObject().Field("kind", cut::KindName(v.kind)).Key("tx");
  if (v.xid) {
    j.String(v.xid->ToString());
  } else {
    j.Null();
  }
  j.Key("nodes").BeginArray();
  for (const auto& n : v.nodes) j.String(n);
  j.EndArray().Field("detail", v.detail).EndObject();
}

}  // namespace tools
