// `walcut data` of Apache Ignite's page files: each node's copies of each partition, a
// line per cache and partition and a line per row, as the data of a restore of Ignite's
// WAL prints; a partition file read and printed at a time.
#include <algorithm>
#include <iterator>

#include "app/ignite_stores.h"
#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "recovery/ignite_copies.h"
#include "tools/data.h"
#include "tools/escape.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

// At most this many damage lines per file; the rest are counted.
constexpr size_t kDamageLines = 20;

std::string Text(std::string_view object, const wal::BinaryTypes& types) {
  if (object.empty()) return {};
  return wal::CacheObjectText(static_cast<int8_t>(object[0]), object.substr(1), &types);
}

std::string Class(std::string_view object) {
  if (object.empty()) return "null";
  return wal::CacheObjectClass(static_cast<int8_t>(object[0]), object.substr(1));
}

// Whether --cache names this cache (by name, or by its id in decimal).
bool CacheWanted(const DataOptions& o, const std::string& name, int32_t id) {
  if (o.caches.empty()) return true;
  return std::any_of(o.caches.begin(), o.caches.end(),
                     [&](const std::string& c) { return c == name || c == std::to_string(id); });
}

void CopyText(const std::string& node, const std::string& cache, const recovery::PartitionFile& f, bool summary,
              const wal::BinaryTypes& types, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  fmt::format_to(it, "{} cache {} ({}) partition {} counter {} lwm {} hwm {} entries {} hash 0x{:016x}\n", node,
                 static_cast<int32_t>(f.cache_id), cache, f.partition, f.lwm, f.lwm, f.hwm, f.entries.size(),
                 recovery::ContentHash(f));
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    b->append(std::string_view("  "));
    AppendQuoted(b, Text(e.key, types));
    b->append(std::string_view(" = "));
    AppendQuoted(b, Text(e.value, types));
    if (e.counter != 0) fmt::format_to(it, " counter {}", e.counter);
    b->push_back('\n');
  }
}

void CopyJson(const std::string& cache, const recovery::PartitionFile& f, bool summary, const wal::BinaryTypes& types,
              JsonWriter& j) {
  j.BeginObject().Field("cache", static_cast<int32_t>(f.cache_id)).Field("cache_name", cache);
  j.Field("partition", f.partition).Field("counter", f.lwm).Field("lwm", f.lwm).Field("hwm", f.hwm);
  j.Field("hash", fmt::format("0x{:016x}", recovery::ContentHash(f))).Key("entries").BeginArray();
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    j.BeginObject().Field("key", Text(e.key, types)).Field("key_class", Class(e.key));
    j.Field("value", Text(e.value, types)).Field("value_class", Class(e.value)).Field("counter", e.counter);
    j.EndObject();
  }
  j.EndArray().EndObject();
}

}  // namespace

int RunIgniteData(const DataOptions& o, Output& output) {
  auto stores = app::ResolveIgniteStores(o.paths, o.snapshot);
  if (!stores.ok()) {
    output.Error("{}", stores.status().message());
    return ExitCodeOf(stores.status(), Step::kInputs);
  }
  for (const auto& want : o.nodes) {
    if (std::none_of(stores->nodes.begin(), stores->nodes.end(), [&](const auto& n) { return n.node == want; })) {
      output.Error("no node \"{}\" in the page files given", want);
      return kExitUsage;
    }
  }
  int code = kExitOk;
  bool any_cache = o.caches.empty();
  fmt::memory_buffer b;
  JsonWriter j(&b);
  if (o.json) j.BeginObject().Field("schema", 1).Key("nodes").BeginArray();
  if (o.format == DataFormat::kCsv) AppendCsvHeader(&b);
  for (const auto& node : stores->nodes) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), node.node) == o.nodes.end()) continue;
    auto groups = wal::ListIgniteGroups(node.store);
    if (!groups.ok()) {
      output.Error("{}", groups.status().message());
      code = kExitUnreadable;
      continue;
    }
    wal::BinaryTypes types;
    std::vector<std::string> problems;
    for (const auto& dir : node.binary_meta) types.LoadDir(dir, &problems);
    for (const auto& p : problems) output.Warning("{}", p);
    if (o.json) j.BeginObject().Field("node", node.node).Key("partitions").BeginArray();
    for (const auto& g : *groups) {
      if (g.metastorage) continue;
      for (const auto& c : g.caches) {
        if (!c.problem.empty()) output.Warning("{}", c.problem);
      }
      for (const auto& [partition, path] : g.files) {
        if (partition == wal::ignite_page::kIndexPartition) continue;
        if (o.partition && partition != *o.partition) continue;
        recovery::IgniteCopy copy;
        recovery::IgniteCopyOptions how;
        if (wal::Status s = recovery::ReadIgniteCopy(g, partition, path, how, &copy); !s.ok()) {
          output.Error("{}", s.message());
          code = std::max(code, kExitUnreadable);
          continue;
        }
        for (size_t i = 0; i < copy.damage.size(); ++i) {
          if (i == kDamageLines) {
            output.Error("\"{}\": {} more damaged places", path, copy.damage.size() - i);
            break;
          }
          output.Error("{}", copy.damage[i].ToString(path));
        }
        if (!copy.damage.empty()) code = std::max(code, kExitProblems);
        for (const auto& f : copy.caches) {
          const std::string name = recovery::IgniteCacheName(g, static_cast<int32_t>(f.cache_id));
          if (!CacheWanted(o, name, static_cast<int32_t>(f.cache_id))) continue;
          any_cache = true;
          if (o.Rows() && !o.quiet) {
            for (const auto& e : f.entries) {
              const std::string key = Text(e.key, types), value = Text(e.value, types);
              const std::string key_class = Class(e.key), value_class = Class(e.value);
              const DataRow row{
                  node.node, static_cast<int32_t>(f.cache_id), name, f.partition, key, value, key_class, value_class,
                  e.counter};
              o.format == DataFormat::kCsv ? AppendCsvRow(row, &b) : AppendJsonlRow(row, &b);
            }
          } else if (o.json) {
            CopyJson(name, f, o.summary, types, j);
          } else if (!o.quiet) {
            CopyText(node.node, name, f, o.summary, types, &b);
          }
        }
        if (b.size() > (1 << 20) && !o.quiet) {
          output.out->Write(std::string_view(b.data(), b.size()));
          b.clear();
        }
      }
    }
    if (o.json) j.EndArray().EndObject();
  }
  if (o.json) {
    j.EndArray().EndObject();
    b.push_back('\n');
  }
  if (!any_cache) {
    output.Error("--cache: no such cache in the page files given");
    return kExitUsage;
  }
  if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
  return code;
}

}  // namespace tools
