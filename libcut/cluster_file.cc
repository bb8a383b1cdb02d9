#include "libcut/cluster_file.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libcut/json_doc.h"
#include "libwal/file_io.h"

namespace cut {

const ClusterNode* ClusterInfo::FindNode(std::string_view name) const {
  for (const auto& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> ClusterInfo::ServerNames() const {
  std::vector<std::string> out;
  for (const auto& n : nodes) {
    if (n.server) out.push_back(n.name);
  }
  return out;
}

const TopologyInfo* ClusterInfo::FindVersion(uint32_t v) const {
  const TopologyInfo* best = nullptr;
  for (const auto& t : versions) {
    if (t.version <= v) best = &t;
  }
  return best;
}

bool ClusterInfo::MemberAt(const ClusterNode& n, uint32_t v) {
  return n.server && n.joined_version <= v && (!n.left_version || *n.left_version > v);
}

namespace {

constexpr uint64_t kMaxNodes = 65535;

ClusterNode ParseNode(const JsonObject& o) {
  ClusterNode n;
  n.name = o.String("name", 255);
  if (!IsSafeName(n.name)) {
    o.Fail(fmt::format("{}: \"{}\" cannot be a node name (one path component: no '/', no NUL, not . or ..)",
                       o.Where("name"), n.name));
  }
  const std::string role = o.String("role", 16);
  if (role != "server" && role != "client") {
    o.Fail(fmt::format("{}: \"{}\", expected \"server\" or \"client\"", o.Where("role"), role));
  }
  n.server = role == "server";
  n.id = o.Uuid("id");
  n.order = static_cast<uint16_t>(o.Uint("order", 65535));
  if (n.order == 0) o.Fail(fmt::format("{}: 0, orders start at 1", o.Where("order")));
  n.joined_version = static_cast<uint32_t>(o.Uint("joined_topology_version", UINT32_MAX));
  if (o.Has("left_topology_version")) {
    n.left_version = static_cast<uint32_t>(o.Uint("left_topology_version", UINT32_MAX));
    if (*n.left_version <= n.joined_version) {
      o.Fail(fmt::format("{}: {} is not after the join ({})", o.Where("left_topology_version"), *n.left_version,
                         n.joined_version));
    }
  }
  return n;
}

// Names, ids and orders each unique.
void ParseNodes(const JsonObject& top, ClusterInfo* info) {
  std::set<std::string> names;
  std::set<wal::Uuid> ids;
  std::set<uint16_t> orders;
  const auto& nodes = top.Array("nodes", kMaxNodes);
  if (nodes.empty()) top.Fail("nodes: no node");
  for (size_t i = 0; i < nodes.size(); ++i) {
    JsonObject o = top.Element(nodes[i], fmt::format("nodes[{}]", i));
    ClusterNode n = ParseNode(o);
    if (!names.insert(n.name).second) o.Fail(fmt::format("{}: \"{}\" appears twice", o.Where("name"), n.name));
    if (!ids.insert(n.id).second) o.Fail(fmt::format("{}: {} appears twice", o.Where("id"), n.id.ToString()));
    if (!orders.insert(n.order).second) o.Fail(fmt::format("{}: {} appears twice", o.Where("order"), n.order));
    info->nodes.push_back(std::move(n));
  }
}

std::vector<std::vector<std::string>> ParsePlacement(const ClusterInfo& info, const JsonObject& o, size_t partitions,
                                                     const char* of, const TopologyInfo* version);

// Returns the largest partition count of the caches.
uint32_t ParseCaches(const JsonObject& top, ClusterInfo* info) {
  const auto& caches = top.Array("caches", kMaxNodes);
  if (caches.empty()) top.Fail("caches: no cache");
  std::set<uint32_t> cache_ids;
  uint32_t widest = 0;
  for (size_t i = 0; i < caches.size(); ++i) {
    JsonObject o = top.Element(caches[i], fmt::format("caches[{}]", i));
    CacheInfo c;
    c.id = static_cast<uint32_t>(o.Uint("id", UINT32_MAX));
    c.name = o.String("name", 255);
    c.partitions = static_cast<uint32_t>(o.Uint("partitions", 65536));
    if (c.partitions == 0) o.Fail(fmt::format("{}: 0", o.Where("partitions")));
    c.backups = static_cast<uint32_t>(o.Uint("backups", kMaxNodes));
    if (!cache_ids.insert(c.id).second) o.Fail(fmt::format("{}: {} appears twice", o.Where("id"), c.id));
    if (o.Has("assignment")) c.assignment = ParsePlacement(*info, o, c.partitions, "the cache has", nullptr);
    if (o.Has("atomic")) c.atomic = o.Bool("atomic");
    widest = std::max(widest, c.partitions);
    info->caches.push_back(std::move(c));
  }
  return widest;
}

std::string ServerName(const ClusterInfo& info, const nlohmann::json& j, const std::string& where, JsonErrors* errors) {
  std::string name = JsonString(j, where, errors, 255);
  const ClusterNode* n = info.FindNode(name);
  if (n == nullptr || !n->server) errors->Fail(fmt::format("{}: \"{}\" is not a server of nodes", where, name));
  return name;
}

// Partition p's holders, each once: servers of `version` for a version's assignment, of
// the file for a cache's own.
std::vector<std::vector<std::string>> ParsePlacement(const ClusterInfo& info, const JsonObject& o, size_t partitions,
                                                     const char* of, const TopologyInfo* version) {
  const auto& assignment = o.Array("assignment", 65536);
  if (assignment.size() != partitions) {
    o.Fail(fmt::format("{}: {} partitions, {} {}", o.Where("assignment"), assignment.size(), of, partitions));
  }
  std::vector<std::vector<std::string>> out;
  for (size_t p = 0; p < assignment.size(); ++p) {
    const std::string where = fmt::format("{}[{}]", o.Where("assignment"), p);
    std::vector<std::string> row;
    if (!assignment[p].is_array() || assignment[p].size() > kMaxNodes) {
      o.Fail(where + ": expected an array of server names");
      out.push_back(std::move(row));
      continue;
    }
    for (const auto& h : assignment[p]) {
      std::string name = ServerName(info, h, where, o.errors());
      if (version != nullptr &&
          std::find(version->servers.begin(), version->servers.end(), name) == version->servers.end()) {
        o.Fail(fmt::format("{}: \"{}\" is not among the servers of version {}", where, name, version->version));
      }
      if (std::find(row.begin(), row.end(), name) != row.end()) o.Fail(fmt::format("{}: \"{}\" twice", where, name));
      row.push_back(std::move(name));
    }
    out.push_back(std::move(row));
  }
  return out;
}

// Versions in increasing order.
void ParseVersions(const JsonObject& top, uint32_t widest, ClusterInfo* info) {
  const auto& versions = top.Array("topology_versions", 1u << 20);
  if (versions.empty()) top.Fail("topology_versions: no version");
  for (size_t i = 0; i < versions.size(); ++i) {
    JsonObject o = top.Element(versions[i], fmt::format("topology_versions[{}]", i));
    TopologyInfo t;
    t.version = static_cast<uint32_t>(o.Uint("version", UINT32_MAX));
    if (!info->versions.empty() && t.version <= info->versions.back().version) {
      o.Fail(fmt::format("{}: {} does not follow {}", o.Where("version"), t.version, info->versions.back().version));
    }
    if (o.Has("event")) t.event = o.String("event");
    const auto& servers = o.Array("servers", kMaxNodes);
    for (size_t s = 0; s < servers.size(); ++s) {
      t.servers.push_back(ServerName(*info, servers[s], fmt::format("{}[{}]", o.Where("servers"), s), o.errors()));
    }
    if (o.Has("clients")) {
      const auto& clients = o.Array("clients", kMaxNodes);
      for (size_t k = 0; k < clients.size(); ++k) {
        t.clients.push_back(JsonString(clients[k], o.Where("clients"), o.errors(), 255));
      }
    }
    t.assignment = ParsePlacement(*info, o, widest, "the caches have", &t);
    info->versions.push_back(std::move(t));
  }
}

ClusterInfo Parse(const nlohmann::json& doc, JsonErrors* errors) {
  JsonObject top(doc, "", errors);
  ClusterInfo info;
  const uint64_t schema = top.Uint("schema");
  if (!errors->ok()) return info;
  if (schema != 1) {
    top.Fail(fmt::format("schema {} is not supported (this walcut reads schema 1)", schema));
    return info;
  }
  if (top.Has("seed")) info.seed = top.String("seed", 64);
  ParseNodes(top, &info);
  const uint32_t widest = ParseCaches(top, &info);
  if (top.Has("accounts")) info.accounts = top.Uint("accounts", UINT32_MAX);
  if (top.Has("initial_balance")) info.initial_balance = top.Int("initial_balance");
  ParseVersions(top, widest, &info);
  return info;
}

}  // namespace

wal::Result<ClusterInfo> ParseClusterFile(std::string_view text, const std::string& path) {
  auto doc = ParseJson(text, path);
  if (!doc.ok()) return doc.status();
  JsonErrors errors;
  ClusterInfo info = Parse(*doc, &errors);
  if (errors.ok()) return info;
  const bool version = std::string_view(errors.first()).starts_with("schema ");
  return wal::Status(version ? wal::StatusCode::kNotSupported : wal::StatusCode::kCorruption,
                     fmt::format("\"{}\": {}", path, errors.first()));
}

wal::Result<ClusterInfo> ReadClusterFile(const std::string& dir) {
  const std::string path = dir + "/" + kClusterFileName;
  auto text = wal::ReadFileToString(path, kMaxSideFileBytes);
  if (!text.ok()) return text.status();
  return ParseClusterFile(*text, path);
}

std::string EncodeClusterFile(const ClusterInfo& info) {
  nlohmann::ordered_json doc;
  doc["schema"] = 1;
  doc["seed"] = info.seed;
  auto& nodes = doc["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : info.nodes) {
    nlohmann::ordered_json j;
    j["name"] = n.name;
    j["role"] = n.server ? "server" : "client";
    j["id"] = n.id.ToString();
    j["order"] = n.order;
    j["joined_topology_version"] = n.joined_version;
    if (n.left_version) j["left_topology_version"] = *n.left_version;
    nodes.push_back(j);
  }
  auto& caches = doc["caches"] = nlohmann::ordered_json::array();
  for (const auto& c : info.caches) {
    nlohmann::ordered_json cache;
    cache["id"] = c.id;
    cache["name"] = c.name;
    cache["partitions"] = c.partitions;
    cache["backups"] = c.backups;
    if (c.atomic) cache["atomic"] = true;
    if (!c.assignment.empty()) cache["assignment"] = c.assignment;
    caches.push_back(cache);
  }
  doc["accounts"] = info.accounts;
  doc["initial_balance"] = info.initial_balance;
  auto& versions = doc["topology_versions"] = nlohmann::ordered_json::array();
  const bool several = info.versions.size() > 1;
  for (const auto& t : info.versions) {
    nlohmann::ordered_json v;
    v["version"] = t.version;
    if (several) v["event"] = t.event;
    v["servers"] = t.servers;
    if (several) v["clients"] = t.clients;
    v["assignment"] = t.assignment;
    versions.push_back(v);
  }
  return doc.dump(2) + "\n";
}

}  // namespace cut
