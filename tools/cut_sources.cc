#include "tools/cut_sources.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>

#include "libcut/summary_file.h"
#include "tools/escape.h"
#include "tools/inputs.h"

namespace tools {

bool LoadIndexesFromWal(const std::vector<std::string>& paths, Output& output,
                        std::vector<cut::NodeIndex>* out, int* code) {
  auto inputs = ResolveWalInputs(paths);
  if (!inputs.ok()) {
    output.Error("{}", inputs.status().message());
    *code = kExitUnreadable;
    return false;
  }
  for (const auto& in : *inputs) {
    if (in.wal_dir.empty()) {
      output.Error("cut analysis needs node WAL directories, not single segment files");
      *code = kExitUsage;
      return false;
    }
    auto index = cut::BuildNodeIndex(in.node, in.wal_dir);
    if (!index.ok()) {
      output.Error("{}", index.status().message());
      *code = kExitUnreadable;
      return false;
    }
    // The first errors of a node locate the damage; the rest only count.
    constexpr size_t kShown = 10;
    for (size_t e = 0; e < index->read_errors.size() && e < kShown; ++e) output.Error("{}", index->read_errors[e]);
    if (index->read_errors.size() > kShown) {
      output.Error("{}: {} more read errors not shown", in.node, index->read_errors.size() - kShown);
    }
    out->push_back(std::move(index).value());
  }
  return true;
}

namespace {

// The first errors of a node locate the damage; the rest only count.
void PrintReadErrors(const cut::NodeIndex& index, Output& output) {
  constexpr size_t kShown = 10;
  for (size_t e = 0; e < index.read_errors.size() && e < kShown; ++e) output.Error("{}", index.read_errors[e]);
  if (index.read_errors.size() > kShown) {
    output.Error("{}: {} more read errors not shown", index.node, index.read_errors.size() - kShown);
  }
}

}  // namespace

bool CheckFromWal(const std::vector<std::string>& paths, Output& output, cut::StreamedCluster* out, int* code) {
  auto inputs = ResolveWalInputs(paths);
  if (!inputs.ok()) {
    output.Error("{}", inputs.status().message());
    *code = kExitUnreadable;
    return false;
  }
  std::vector<std::unique_ptr<cut::CutFeed>> feeds;
  for (const auto& in : *inputs) {
    if (in.wal_dir.empty()) {
      output.Error("cut analysis needs node WAL directories, not single segment files");
      *code = kExitUsage;
      return false;
    }
    auto feed = cut::WalFeed(in.node, in.wal_dir);
    if (!feed.ok()) {
      output.Error("{}", feed.status().message());
      *code = kExitUnreadable;
      return false;
    }
    feeds.push_back(std::move(feed).value());
  }
  *out = cut::CheckClusterStreaming(std::move(feeds));
  // In the order the nodes were given, as when they are read whole.
  for (const auto& in : *inputs) {
    for (const auto& n : out->nodes) {
      if (n.node == in.node) PrintReadErrors(n, output);
    }
  }
  return true;
}

bool LoadIndexesFromSummaries(const std::vector<std::string>& files, Output& output,
                              std::vector<cut::NodeIndex>* out, int* code) {
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      output.Error("cannot open \"{}\"", f);
      *code = kExitUnreadable;
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    auto index = cut::DecodeSummary(ss.str(), f);
    if (!index.ok()) {
      output.Error("{}", index.status().message());
      *code = kExitUnreadable;
      return false;
    }
    for (const auto& have : *out) {
      if (have.node == index->node) {
        output.Error("two summaries of node \"{}\" (\"{}\")", index->node, f);
        *code = kExitUsage;
        return false;
      }
    }
    out->push_back(std::move(index).value());
  }
  return true;
}

bool SelectCut(const cut::ClusterReport& report, const std::string& prefix, Output& output,
               size_t* index, int* code) {
  std::string p = prefix;
  for (auto& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<size_t> hits;
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    if (report.cuts[i].id.ToString().starts_with(p)) hits.push_back(i);
  }
  if (hits.size() == 1) {
    *index = hits[0];
    return true;
  }
  if (hits.empty()) {
    output.Error("no cut id starts with \"{}\"", prefix);
    output.Hint("\"walcut cuts DIR\" lists the cuts");
  } else {
    output.Error("\"{}\" matches {} cuts; give more of the id", prefix, hits.size());
  }
  *code = kExitUsage;
  return false;
}

std::string CutHeadline(const cut::CutReport& c) {
  std::string s = fmt::format("cut {}: {}", c.id.ToString(), cut::CutStatusName(c.status));
  if (c.increment) s += fmt::format(", increment {} of \"{}\"", *c.increment, c.base);
  if (!c.reason.empty()) s += ": " + c.reason;
  return s;
}

std::string ViolationJson(const cut::Violation& v) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\"kind\":\"{}\",\"tx\":", v.kind);
  if (v.xid) {
    fmt::format_to(it, "\"{}\"", v.xid->ToString());
  } else {
    fmt::format_to(it, "null");
  }
  fmt::format_to(it, ",\"nodes\":[");
  for (size_t i = 0; i < v.nodes.size(); ++i) {
    if (i) b.push_back(',');
    AppendJsonString(&b, v.nodes[i]);
  }
  fmt::format_to(it, "],\"detail\":");
  AppendJsonString(&b, v.detail);
  b.push_back('}');
  return fmt::to_string(b);
}

}  // namespace tools
