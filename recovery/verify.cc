#include "recovery/verify.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "recovery/partition_file.h"

namespace recovery {
namespace fs = std::filesystem;

namespace {

struct CopyInfo {
  std::string node;
  uint64_t lwm = 0, hwm = 0, hash = 0;
  size_t entries = 0;
};

std::string ReadAll(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

static wal::Result<VerifyReport> VerifyDirectoryUnchecked(const std::string& dir) {
  VerifyReport report;
  bool ok = false;
  std::string text = ReadAll(dir + "/cluster.json", &ok);
  if (!ok) return wal::Status::NotFound(fmt::format("\"{}\" has no cluster.json: not a cluster or restored directory", dir));
  auto cluster = nlohmann::json::parse(text, nullptr, false);
  if (cluster.is_discarded()) return wal::Status::Corruption(fmt::format("\"{}/cluster.json\" is not JSON", dir));
  std::vector<std::string> nodes;
  for (const auto& n : cluster.value("nodes", nlohmann::json::array())) {
    // A server that left the cluster holds no live copy.
    if (n.value("role", "server") == "server" && !n.contains("left_topology_version")) {
      nodes.push_back(n.value("name", ""));
    }
  }
  // For a restored directory: the nodes restored and the files they should hold.
  std::map<std::string, std::map<std::string, std::string>> manifest;  // node -> file -> checksum
  std::string manifest_text = ReadAll(dir + "/restore.json", &ok);
  if (ok) {
    report.restored = true;
    auto m = nlohmann::json::parse(manifest_text, nullptr, false);
    if (m.is_discarded() || !m.contains("nodes")) {
      return wal::Status::Corruption(fmt::format("\"{}/restore.json\" is not a restore manifest", dir));
    }
    nodes.clear();
    for (const auto& n : m["nodes"]) {
      std::string name = n.value("node", "");
      nodes.push_back(name);
      auto& files = manifest[name];
      for (const auto& f : n.value("files", nlohmann::json::array())) {
        files[f.value("file", "")] = f.value("checksum", "");
      }
    }
  }
  // Where each partition should live: for a restored directory, the assignment of the
  // cut's topology version; for a cluster, the last version's (a server that left holds
  // nothing there).
  uint32_t want_version = 0;
  if (report.restored) {
    auto m = nlohmann::json::parse(manifest_text, nullptr, false);
    want_version = m.value("topology_version", 0u);
  }
  std::map<uint32_t, std::vector<std::string>> expected;
  if (cluster.contains("topology_versions") && !cluster["topology_versions"].empty()) {
    const nlohmann::json* version = &cluster["topology_versions"].back();
    for (const auto& v : cluster["topology_versions"]) {
      if (want_version != 0 && v.value("version", 0u) == want_version) version = &v;
    }
    const auto assignment = version->value("assignment", nlohmann::json::array());
    for (uint32_t p = 0; p < assignment.size(); ++p) {
      for (const auto& holder : assignment[p]) {
        std::string name = holder.get<std::string>();
        if (std::find(nodes.begin(), nodes.end(), name) != nodes.end()) expected[p].push_back(name);
      }
    }
  }
  std::map<std::pair<uint32_t, uint32_t>, std::vector<CopyInfo>> copies;
  for (const auto& node : nodes) {
    std::string data = dir + "/" + node + "/data";
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(data, ec)) {
      uint32_t c = 0, p = 0;
      if (ParsePartitionFileName(e.path().filename().string(), &c, &p)) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    if (report.restored) {
      for (const auto& [file, sum] : manifest[node]) {
        if (std::find(names.begin(), names.end(), file) == names.end()) {
          uint32_t c = 0, p = 0;
          ParsePartitionFileName(file, &c, &p);
          report.conflicts.push_back({"manifest", c, p, {node}, fmt::format("\"{}/{}\" is in restore.json but missing", data, file)});
        }
      }
    }
    for (const auto& name : names) {
      ++report.files;
      std::string path = data + "/" + name;
      uint32_t c = 0, p = 0;
      ParsePartitionFileName(name, &c, &p);
      bool read_ok = false;
      std::string bytes = ReadAll(path, &read_ok);
      auto pf = DecodePartitionFile(bytes);
      if (!pf.ok()) {
        report.conflicts.push_back({"checksum", c, p, {node}, fmt::format("\"{}\": {}", path, pf.status().message())});
        continue;
      }
      if (report.restored) {
        auto want = manifest[node].find(name);
        std::string have = fmt::format("0x{:016x}", FileChecksum(bytes));
        if (want == manifest[node].end()) {
          report.conflicts.push_back({"manifest", c, p, {node}, fmt::format("\"{}\" is not in restore.json", path)});
        } else if (want->second != have) {
          report.conflicts.push_back({"manifest", c, p, {node},
                                      fmt::format("\"{}\": checksum {} but restore.json recorded {}", path, have, want->second)});
        }
      }
      copies[{pf->cache_id, pf->partition}].push_back({node, pf->lwm, pf->hwm, ContentHash(*pf), pf->entries.size()});
    }
  }
  // A partition with no copy at all is a conflict too.
  for (const auto& [partition, holders] : expected) {
    bool any = false;
    for (const auto& [id, list] : copies) any |= id.second == partition;
    if (!any && !holders.empty()) {
      report.conflicts.push_back({"missing-copy", 1, partition, holders, "no copy of the partition is present"});
    }
  }
  report.partitions = copies.size();
  for (const auto& [id, list] : copies) {
    const auto [cache, partition] = id;
    if (list.size() < expected[partition].size()) {
      std::vector<std::string> missing;
      for (const auto& n : expected[partition]) {
        if (std::none_of(list.begin(), list.end(), [&](const CopyInfo& ci) { return ci.node == n; })) missing.push_back(n);
      }
      report.conflicts.push_back({"missing-copy", cache, partition, missing,
                                  fmt::format("{} of {} copies present", list.size(), expected[partition].size())});
    }
    for (size_t i = 1; i < list.size(); ++i) {
      const CopyInfo& a = list[0];
      const CopyInfo& b = list[i];
      if (a.lwm != b.lwm || a.hwm != b.hwm) {
        report.conflicts.push_back({"counter", cache, partition, {a.node, b.node},
                                    fmt::format("counter {} (lwm {}, hwm {}) on {}, {} (lwm {}, hwm {}) on {}", a.lwm, a.lwm,
                                                a.hwm, a.node, b.lwm, b.lwm, b.hwm, b.node)});
      }
      if (a.hash != b.hash) {
        report.conflicts.push_back({"content", cache, partition, {a.node, b.node},
                                    fmt::format("content hash 0x{:016x} ({} entries) on {}, 0x{:016x} ({} entries) on {}",
                                                a.hash, a.entries, a.node, b.hash, b.entries, b.node)});
      }
    }
    for (const auto& ci : list) {
      if (ci.lwm != ci.hwm) {
        report.conflicts.push_back({"counter", cache, partition, {ci.node},
                                    fmt::format("open gaps on {}: lwm {} below hwm {}", ci.node, ci.lwm, ci.hwm)});
      }
    }
  }
  return report;
}

wal::Result<VerifyReport> VerifyDirectory(const std::string& dir) {
  // cluster.json and restore.json come from outside: a document of the wrong shape is
  // unreadable input, not a crash.
  try {
    return VerifyDirectoryUnchecked(dir);
  } catch (const std::exception& e) {
    return wal::Status::Corruption(fmt::format("\"{}\": malformed cluster.json or restore.json: {}", dir, e.what()));
  }
}

}  // namespace recovery
