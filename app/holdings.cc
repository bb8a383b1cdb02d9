#include "app/holdings.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

namespace app {
namespace {

namespace fs = std::filesystem;

// The files under `dir` and their bytes (those whose name ends in `suffix`, when given).
void Tally(const fs::path& dir, const std::string& suffix, uint64_t* files, uint64_t* bytes) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    if (!suffix.empty() &&
        (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)) {
      continue;
    }
    ++*files;
    *bytes += it->file_size(ec);
  }
}

void Sort(std::vector<std::string>* v) { std::sort(v->begin(), v->end(), NaturalLess); }

// walcut's nodes: <node dir>/snapshots/<name>/, the node directory holding wal/.
std::vector<SnapshotHoldings> WalcutHoldings(const WalInputs& inputs) {
  std::map<std::string, SnapshotHoldings> by_name;
  std::vector<std::string> all;
  for (const auto& in : inputs.nodes) {
    if (in.wal_dir.dirs.empty()) continue;
    all.push_back(in.node);
    const fs::path snapshots = fs::path(in.wal_dir.dirs.front()).parent_path() / "snapshots";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(snapshots, ec)) {
      if (!e.is_directory(ec)) continue;
      SnapshotHoldings& h = by_name[e.path().filename().string()];
      h.name = e.path().filename().string();
      h.nodes.push_back(in.node);
      Tally(e.path(), "", &h.files, &h.bytes);
    }
  }
  std::vector<SnapshotHoldings> out;
  for (auto& [name, h] : by_name) {
    for (const auto& n : all) {
      if (std::find(h.nodes.begin(), h.nodes.end(), n) == h.nodes.end()) h.missing.push_back(n);
    }
    Sort(&h.nodes);
    out.push_back(std::move(h));
  }
  return out;
}

// Ignite's nodes: each snapshot directory of each node (snapshots/* of its work directory,
// or the directory given), with the node's .smf.
std::vector<SnapshotHoldings> IgniteHoldings(const WalInputs& inputs) {
  std::map<std::string, SnapshotHoldings> by_name;
  std::map<std::string, std::set<std::string>> baseline;  // folders
  std::map<std::pair<std::string, uint32_t>, IncrementHoldings> increments;
  for (const auto& in : inputs.nodes) {
    if (!in.ignite) continue;
    for (const auto& dir : SnapshotDirsOf(in)) {
      auto meta = FullSnapshotMeta(dir, in.node);
      if (!meta) continue;
      SnapshotHoldings& h = by_name[meta->snapshot];
      h.name = meta->snapshot;
      h.time_ms = std::max(h.time_ms, meta->time_ms);
      h.nodes.push_back(in.node);
      for (const auto& id : meta->baseline) baseline[h.name].insert(wal::IgniteFolderOf(id));
      Tally(fs::path(dir) / "db" / in.node, ".bin", &h.files, &h.bytes);
      for (uint32_t i = 1;; ++i) {
        auto im = IncrementSnapshotMeta(dir, in.node, i);
        if (!im) break;
        const fs::path inc = fs::path(dir) / "increments" / fmt::format("{:016d}", i);
        IncrementHoldings& k = increments[{h.name, i}];
        k.index = i;
        if (k.request_id.empty()) k.request_id = im->request_id.ToString();
        k.time_ms = std::max(k.time_ms, im->time_ms);
        k.with_meta.push_back(in.node);
        uint64_t files = 0, wal = 0;
        Tally(inc / "db" / "wal" / in.node, "", &files, &wal);
        if (files > 0) k.with_wal.push_back(in.node);
        k.wal_bytes += wal;
      }
    }
  }
  std::vector<SnapshotHoldings> out;
  for (auto& [name, h] : by_name) {
    for (const auto& folder : baseline[name]) {
      if (std::find(h.nodes.begin(), h.nodes.end(), folder) == h.nodes.end()) h.missing.push_back(folder);
    }
    Sort(&h.nodes);
    for (auto& [key, k] : increments) {
      if (key.first != name) continue;
      Sort(&k.with_meta);
      Sort(&k.with_wal);
      h.increments.push_back(std::move(k));
    }
    out.push_back(std::move(h));
  }
  std::sort(out.begin(), out.end(), [](const SnapshotHoldings& a, const SnapshotHoldings& b) {
    return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.name < b.name;
  });
  return out;
}

}  // namespace

std::vector<SnapshotHoldings> HoldingsOf(const WalInputs& inputs) {
  for (const auto& in : inputs.nodes) {
    if (IsIgniteInput(in)) return IgniteHoldings(inputs);
  }
  return WalcutHoldings(inputs);
}

}  // namespace app
