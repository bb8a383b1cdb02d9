#include "recovery/manifest_file.h"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libcut/json_doc.h"
#include "libwal/file_io.h"
#include "recovery/partition_file.h"

namespace recovery {
namespace {

std::string Hex(uint64_t v) { return fmt::format("0x{:016x}", v); }

uint64_t ParseHex(const cut::JsonObject& o, const char* key) {
  const std::string s = o.String(key, 32);
  uint64_t v = 0;
  if (s.size() != 18 || s[0] != '0' || s[1] != 'x') {
    o.Fail(fmt::format("{}: not 0x and 16 hex digits", o.Where(key)));
    return 0;
  }
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) {
      o.Fail(fmt::format("{}: not 0x and 16 hex digits", o.Where(key)));
      return 0;
    }
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

ManifestNode ParseNode(const cut::JsonObject& o) {
  ManifestNode n;
  n.node = o.String("node", 255);
  if (!cut::IsSafeName(n.node)) o.Fail(fmt::format("{}: \"{}\" cannot be a node name", o.Where("node"), n.node));
  n.read_from = o.Pointer("read_from");
  n.read_to = o.Pointer("read_to");
  n.txs_applied = o.Uint("txs_applied");
  n.txs_skipped = o.Uint("txs_skipped");
  n.entries = o.Uint("entries");
  n.rollbacks_applied = o.Uint("rollbacks_applied");
  n.gaps_closed = o.Uint("gaps_closed");
  const auto& files = o.Array("files", 1u << 24);
  std::set<std::string> seen;
  for (size_t i = 0; i < files.size(); ++i) {
    cut::JsonObject f = o.Element(files[i], fmt::format("{}[{}]", o.Where("files"), i));
    ManifestEntry e;
    e.file = f.String("file", 64);
    uint32_t cache = 0, partition = 0;
    if (!ParsePartitionFileName(e.file, &cache, &partition)) {
      f.Fail(fmt::format("{}: \"{}\" is not a partition file name", f.Where("file"), e.file));
    }
    if (!seen.insert(e.file).second) f.Fail(fmt::format("{}: \"{}\" twice", f.Where("file"), e.file));
    e.checksum = ParseHex(f, "checksum");
    e.counter = f.Uint("counter");
    e.hash = ParseHex(f, "hash");
    n.files.push_back(std::move(e));
  }
  return n;
}

RestoreManifest Parse(const nlohmann::json& doc, cut::JsonErrors* errors) {
  cut::JsonObject o(doc, "", errors);
  RestoreManifest m;
  if (o.Uint("schema") != 1) {
    o.Fail("schema: not 1");
    return m;
  }
  if (o.Has("source")) {
    const std::string source = o.String("source", 16);
    if (source != "walcut" && source != "ignite") {
      o.Fail(fmt::format("{}: \"{}\" is neither walcut nor ignite", o.Where("source"), source));
    }
    m.ignite = source == "ignite";
  }
  m.cut = o.Uuid("cut");
  m.increment = static_cast<uint32_t>(o.Uint("increment", UINT32_MAX));
  m.base = o.String("base", 255);
  m.topology_version = static_cast<uint32_t>(o.Uint("topology_version", UINT32_MAX));
  m.finish_ts = o.Uint("finish_ts");
  if (o.Has("only_nodes")) {
    for (const auto& n : o.Array("only_nodes", 65535))
      m.only_nodes.push_back(cut::JsonString(n, o.Where("only_nodes"), errors, 255));
  }
  for (auto [name, out] :
       {std::make_pair("only_caches", &m.only_caches), std::make_pair("only_partitions", &m.only_partitions)}) {
    if (!o.Has(name)) continue;
    for (const auto& v : o.Array(name, 65536)) {
      if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX) {
        o.Fail(fmt::format("{}: not a number from 0 to {}", o.Where(name), UINT32_MAX));
        return m;
      }
      out->push_back(v.get<uint32_t>());
    }
  }
  if (o.Has("forced")) m.forced = o.Bool("forced");
  if (o.Has("conflicts")) {
    for (const auto& c : o.Array("conflicts", 1u << 20))
      m.conflicts.push_back(cut::JsonString(c, o.Where("conflicts"), errors, 1 << 16));
  }
  std::set<std::string> names;
  const auto& nodes = o.Array("nodes", 65535);
  for (size_t i = 0; i < nodes.size(); ++i) {
    ManifestNode n = ParseNode(o.Element(nodes[i], fmt::format("nodes[{}]", i)));
    if (!names.insert(n.node).second) o.Fail(fmt::format("nodes[{}]: \"{}\" twice", i, n.node));
    m.nodes.push_back(std::move(n));
  }
  return m;
}

}  // namespace

std::string EncodeManifest(const RestoreManifest& m) {
  nlohmann::ordered_json doc;
  doc["schema"] = 1;
  if (m.ignite) doc["source"] = "ignite";
  doc["cut"] = m.cut.ToString();
  doc["increment"] = m.increment;
  doc["base"] = m.base;
  doc["topology_version"] = m.topology_version;
  doc["finish_ts"] = m.finish_ts;
  if (!m.only_nodes.empty()) doc["only_nodes"] = m.only_nodes;
  if (!m.only_caches.empty()) doc["only_caches"] = m.only_caches;
  if (!m.only_partitions.empty()) doc["only_partitions"] = m.only_partitions;
  if (m.forced) {
    doc["forced"] = true;
    doc["conflicts"] = m.conflicts;
  }
  auto& nodes = doc["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : m.nodes) {
    nlohmann::ordered_json j;
    j["node"] = n.node;
    j["read_from"] = n.read_from.ToString();
    j["read_to"] = n.read_to.ToString();
    j["txs_applied"] = n.txs_applied;
    j["txs_skipped"] = n.txs_skipped;
    j["entries"] = n.entries;
    j["rollbacks_applied"] = n.rollbacks_applied;
    j["gaps_closed"] = n.gaps_closed;
    auto& files = j["files"] = nlohmann::ordered_json::array();
    for (const auto& f : n.files) {
      files.push_back({{"file", f.file}, {"checksum", Hex(f.checksum)}, {"counter", f.counter}, {"hash", Hex(f.hash)}});
    }
    nodes.push_back(std::move(j));
  }
  return cut::SealJson(std::move(doc));
}

wal::Result<RestoreManifest> ReadManifest(const std::string& dir) {
  const std::string path = dir + "/" + kManifestFileName;
  auto text = wal::ReadFileToString(path, cut::kMaxSideFileBytes);
  if (!text.ok()) return text.status();
  return ParseManifest(*text, path);
}

wal::Result<RestoreManifest> ParseManifest(std::string_view text, const std::string& path) {
  auto doc = cut::ParseJson(text, path);
  if (!doc.ok()) return doc.status();
  WAL_RETURN_IF_ERROR(cut::CheckJsonSeal(&*doc, path));
  cut::JsonErrors errors;
  RestoreManifest m = Parse(*doc, &errors);
  if (!errors.ok()) return wal::Status::Corruption(fmt::format("\"{}\": {}", path, errors.first()));
  return m;
}

}  // namespace recovery
