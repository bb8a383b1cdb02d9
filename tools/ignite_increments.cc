#include "tools/ignite_increments.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "libwal/file_io.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxSmfBytes = 1 << 20;  // a few hundred bytes in practice

struct Kept {
  std::string snapshot;
  uint32_t index = 0;
  std::string bytes;  // the .smf file
};

// The increments' metadata of one node: snapshots/*/increments/<16 digits>/<folder>.smf.
std::vector<Kept> ReadKept(const fs::path& work, const std::string& folder) {
  std::vector<Kept> out;
  std::error_code ec;
  for (const auto& snap : fs::directory_iterator(work / "snapshots", ec)) {
    std::error_code ec2;
    for (const auto& inc : fs::directory_iterator(snap.path() / "increments", ec2)) {
      const std::string name = inc.path().filename().string();
      if (name.size() != 16 || !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(c); })) continue;
      auto bytes = wal::ReadFileToString((inc.path() / (folder + ".smf")).string(), kMaxSmfBytes);
      constexpr std::string_view kJavaStream("\xAC\xED\x00\x05", 4);  // ObjectOutputStream's magic, version
      if (!bytes.ok() || std::string_view(*bytes).substr(0, 4) != kJavaStream) continue;
      out.push_back({snap.path().filename().string(), static_cast<uint32_t>(std::stoul(name)), std::move(*bytes)});
    }
  }
  return out;
}

// A java.util.UUID as ObjectOutputStream writes its fields: leastSigBits, then
// mostSigBits, each big-endian.
std::string JavaUuidBytes(const wal::Uuid& id) {
  std::string out;
  for (uint64_t half : {id.lo, id.hi}) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((half >> shift) & 0xFF));
  }
  return out;
}

}  // namespace

void ApplyIgniteIncrements(const std::vector<WalInput>& inputs, cut::ClusterReport* report) {
  struct NodeKept {
    std::string node;
    std::vector<Kept> kept;
  };
  std::vector<NodeKept> nodes;
  for (const auto& in : inputs) {
    if (!in.ignite || in.ignite_work.empty()) continue;
    std::error_code ec;
    if (!fs::is_directory(fs::path(in.ignite_work) / "snapshots", ec)) continue;
    nodes.push_back({in.node, ReadKept(in.ignite_work, in.node)});
  }
  if (nodes.empty()) return;
  for (auto& c : report->cuts) {
    if (c.status != cut::CutStatus::kConsistent) continue;
    const std::string key = JavaUuidBytes(c.id);
    std::vector<std::string> lacking;
    std::optional<std::pair<std::string, uint32_t>> named;
    for (const auto& n : nodes) {
      auto it = std::find_if(n.kept.begin(), n.kept.end(),
                             [&key](const Kept& k) { return k.bytes.find(key) != std::string::npos; });
      if (it == n.kept.end()) {
        lacking.push_back(n.node);
      } else if (!named) {
        named = std::make_pair(it->snapshot, it->index);
      }
    }
    if (lacking.empty() && named) {
      c.base = named->first;
      c.increment = named->second;
      continue;
    }
    std::string list;
    for (const auto& l : lacking) list += (list.empty() ? "" : ",") + l;
    c.status = cut::CutStatus::kIncomplete;
    c.increment.reset();
    c.reason = fmt::format("Ignite kept no increment of it: no .smf names it on {}", list);
    c.violations.push_back({cut::Kind::kNotKept, std::nullopt, lacking,
                            "every node wrote its Start and Finish records, but Ignite failed the increment"});
  }
}

}  // namespace tools
