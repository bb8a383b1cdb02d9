#include "tools/data.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "app/ignite_stores.h"
#include "libcut/cluster_file.h"
#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "recovery/manifest_file.h"
#include "recovery/partition_file.h"
#include "tools/cache_names.h"
#include "tools/data_dirs.h"
#include "tools/escape.h"
#include "tools/json_writer.h"

namespace tools {
namespace fs = std::filesystem;
namespace {

// How keys and values read: as their bytes, or (a restore of Apache Ignite's WAL) as
// Ignite's cache objects, a type byte and then its bytes, named by the restore's copy of
// the binary metadata.
struct Objects {
  bool ignite = false;
  wal::BinaryTypes types;
  std::map<uint32_t, std::string> cache_names;  // from the cluster.json found, by id

  // A cache id as printed: Ignite's are Java ints, printed signed as dump and Ignite print them.
  std::string Id(uint32_t id) const { return ignite ? std::to_string(static_cast<int32_t>(id)) : std::to_string(id); }
  std::string Name(uint32_t id) const {
    auto it = cache_names.find(id);
    return it == cache_names.end() ? std::string() : it->second;
  }

  std::string Text(std::string_view bytes) const {
    if (bytes.empty()) return {};
    return wal::CacheObjectText(static_cast<int8_t>(bytes[0]), bytes.substr(1), &types);
  }
  std::string Class(std::string_view bytes) const {
    if (bytes.empty()) return "null";
    return wal::CacheObjectClass(static_cast<int8_t>(bytes[0]), bytes.substr(1));
  }
};

// The restore.json above `path` (a restored directory, one of its nodes, or a node's
// data/): whether its partition files hold Ignite's objects; and the caches' names from the
// cluster.json of the restore or cluster directory.
void FindObjects(const std::string& path, Objects* o, Output& output) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  for (int up = 0; up < 3 && !p.empty(); ++up, p = p.parent_path()) {
    std::error_code ec;
    if (o->cache_names.empty() && fs::exists(p / "cluster.json", ec)) {
      if (auto cluster = cut::ReadClusterFile(p.string()); cluster.ok()) {
        for (const auto& c : cluster->caches) {
          if (!c.name.empty()) o->cache_names[c.id] = c.name;
        }
      }  // an unreadable one: the ids alone (verify checks the directory)
    }
    if (!fs::exists(p / recovery::kManifestFileName, ec)) continue;
    auto m = recovery::ReadManifest(p.string());
    if (!m.ok()) {
      output.Warning("{} (keys and values shown as bytes; walcut verify checks the directory)", m.status().message());
      return;
    }
    if (!m->ignite) return;
    o->ignite = true;
    std::vector<std::string> problems;
    o->types.LoadDir((p / "binary_meta").string(), &problems);
    for (const auto& w : problems) output.Warning("{}", w);
    return;
  }
}

void PartitionJson(const recovery::PartitionFile& f, bool summary, const Objects& o, JsonWriter& j) {
  // Ignite's cache ids are Java ints: printed signed, as dump and Ignite print them.
  if (o.ignite) {
    j.BeginObject().Field("cache", static_cast<int32_t>(f.cache_id));
  } else {
    j.BeginObject().Field("cache", f.cache_id);
  }
  if (const std::string name = o.Name(f.cache_id); !name.empty()) j.Field("cache_name", name);
  j.Field("partition", f.partition).Field("counter", f.lwm);
  j.Field("lwm", f.lwm).Field("hwm", f.hwm).Field("hash", fmt::format("0x{:016x}", recovery::ContentHash(f)));
  j.Key("entries").BeginArray();
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    j.BeginObject();
    if (o.ignite) {
      j.Field("key", o.Text(e.key)).Field("key_class", o.Class(e.key));
      j.Field("value", o.Text(e.value)).Field("value_class", o.Class(e.value));
    } else {
      j.Field("key", e.key).Field("value", e.value);
    }
    j.Field("counter", e.counter).EndObject();
  }
  j.EndArray().EndObject();
}

void PartitionText(const std::string& node, const recovery::PartitionFile& f, bool summary, const Objects& o,
                   fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  std::string cache = o.Id(f.cache_id);
  if (const std::string name = o.Name(f.cache_id); !name.empty()) cache += " (" + name + ")";
  fmt::format_to(it, "{} cache {} partition {} counter {} lwm {} hwm {} entries {} hash 0x{:016x}\n", node, cache,
                 f.partition, f.lwm, f.lwm, f.hwm, f.entries.size(), recovery::ContentHash(f));
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    b->append(std::string_view("  "));
    AppendQuoted(b, o.ignite ? o.Text(e.key) : e.key);
    b->append(std::string_view(" = "));
    AppendQuoted(b, o.ignite ? o.Text(e.value) : e.value);
    fmt::format_to(it, " counter {}\n", e.counter);
  }
}

}  // namespace

int RunData(const DataOptions& o, Output& output) {
  if (std::all_of(o.paths.begin(), o.paths.end(), app::IsIgniteStoreInput)) return RunIgniteData(o, output);
  if (o.paths.size() != 1) {
    output.Error("data takes one of walcut's directories (several only of Apache Ignite's)");
    return kExitUsage;
  }
  if (!o.snapshot.empty()) {
    output.Error("--snapshot takes Apache Ignite's page files; \"{}\" is walcut's", o.paths[0]);
    return kExitUsage;
  }
  const std::string& path = o.paths[0];
  auto dirs = ResolveDataDirs(path);
  if (!dirs.ok()) {
    output.Error("{}", dirs.status().message());
    return kExitUnreadable;
  }
  for (const auto& want : o.nodes) {
    if (std::none_of(dirs->begin(), dirs->end(), [&](const DataDir& d) { return d.node == want; })) {
      output.Error("no node \"{}\" in \"{}\"", want, path);
      return kExitUsage;
    }
  }
  Objects objects;
  FindObjects(path, &objects, output);
  // --cache: by name or id, each a cache the cluster.json names (any id without one).
  std::vector<uint32_t> wanted;
  if (!ResolveCacheNames(o.caches, objects.cache_names, objects.ignite, path, &wanted, output)) return kExitUsage;
  const std::set<uint32_t> caches(wanted.begin(), wanted.end());
  bool damaged = false;
  fmt::memory_buffer b;
  JsonWriter j(&b);
  if (o.json) j.BeginObject().Field("schema", 1).Key("nodes").BeginArray();
  if (o.format == DataFormat::kCsv) AppendCsvHeader(&b);
  for (const auto& d : *dirs) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), d.node) == o.nodes.end()) continue;
    if (o.json) j.BeginObject().Field("node", d.node).Key("partitions").BeginArray();
    for (const auto& file : d.files) {
      auto f = recovery::ReadPartitionFile(file);
      if (!f.ok()) {
        output.Error("{}", f.status().message());
        damaged = true;
        continue;
      }
      if (o.partition && f->partition != *o.partition) continue;
      if (!caches.empty() && caches.count(f->cache_id) == 0) continue;
      if (o.Rows() && !o.quiet) {
        const int64_t id = objects.ignite ? int64_t{static_cast<int32_t>(f->cache_id)} : int64_t{f->cache_id};
        const std::string name = objects.Name(f->cache_id);
        for (const auto& e : f->entries) {
          const std::string key = objects.ignite ? objects.Text(e.key) : e.key;
          const std::string value = objects.ignite ? objects.Text(e.value) : e.value;
          const std::string key_class = objects.ignite ? objects.Class(e.key) : std::string();
          const std::string value_class = objects.ignite ? objects.Class(e.value) : std::string();
          const DataRow row{d.node, id, name, f->partition, key, value, key_class, value_class, e.counter};
          o.format == DataFormat::kCsv ? AppendCsvRow(row, &b) : AppendJsonlRow(row, &b);
        }
      } else if (o.json) {
        PartitionJson(*f, o.summary, objects, j);
      } else if (!o.quiet) {
        PartitionText(d.node, *f, o.summary, objects, &b);
      }
      if (b.size() > (1 << 20) && !o.quiet) {
        output.out->Write(std::string_view(b.data(), b.size()));
        b.clear();
      }
    }
    if (o.json) j.EndArray().EndObject();
  }
  if (o.json) {
    j.EndArray().EndObject();
    b.push_back('\n');
  }
  if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
  return damaged ? kExitProblems : kExitOk;
}

}  // namespace tools
