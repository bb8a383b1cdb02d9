#include "recovery/ignite_copies.h"

#include <algorithm>

#include <fmt/format.h>
#include <xxhash.h>

#include "libwal/coding.h"

namespace recovery {
namespace {

// The group's refusals, before any page is read.
wal::Status Refusal(const wal::IgniteGroupDir& g, const std::string& path) {
  for (const auto& c : g.caches) {
    if (!c.config) continue;
    if (c.config->encrypted) {
      return wal::Status::NotSupported(fmt::format(
          "\"{}\": cache '{}' is encrypted (encryptionEnabled): walcut does not read encrypted groups", path, c.name));
    }
    if (c.config->atomicity != "TRANSACTIONAL" && c.config->atomicity != "ATOMIC") {
      return wal::Status::NotSupported(
          fmt::format("\"{}\": cache '{}' is {}: walcut reads no MVCC rows", path, c.name, c.config->atomicity));
    }
  }
  return wal::Status::Ok();
}

uint64_t RowHash(int32_t cache_id, const wal::ignite_page::Row& r) {
  std::string b;
  b.reserve(r.key.size() + r.value.size() + 40);
  wal::PutFixed32(&b, static_cast<uint32_t>(cache_id));
  wal::PutFixed8(&b, static_cast<uint8_t>(r.key_type));
  wal::PutBytes(&b, r.key);
  wal::PutFixed8(&b, static_cast<uint8_t>(r.value_type));
  wal::PutBytes(&b, r.value);
  wal::PutFixed32(&b, r.version.topology_version);
  wal::PutFixed32(&b, r.version.node_order);
  wal::PutFixed64(&b, r.version.order);
  return XXH3_64bits(b.data(), b.size());
}

std::string CacheObject(int8_t type, std::string_view bytes) {
  std::string s;
  s.reserve(1 + bytes.size());
  s.push_back(static_cast<char>(type));
  s.append(bytes);
  return s;
}

}  // namespace

std::string IgniteCacheName(const wal::IgniteGroupDir& group, int32_t cache_id) {
  if (const auto* c = group.FindCache(cache_id); c != nullptr) return c->name;
  if (!group.shared && cache_id == group.id) return group.name;
  return std::to_string(cache_id);
}

wal::Status ReadIgniteCopy(const wal::IgniteGroupDir& group, uint32_t partition, const std::string& path,
                           const IgniteCopyOptions& options, IgniteCopy* out) {
  WAL_RETURN_IF_ERROR(Refusal(group, path));
  auto file = wal::IgnitePartitionFile::Open(path);
  if (!file.ok()) return file.status();
  out->group = &group;
  out->partition = partition;
  out->path = path;
  out->pages = file->pages();
  // The caches whose rows this file holds: a shared group's from its configurations; a
  // cache of its own is the group.
  std::vector<int32_t> ids;
  for (const auto& c : group.caches) ids.push_back(c.id);
  if (!group.shared && ids.empty()) ids.push_back(group.id);
  if (options.keep_rows) {
    for (int32_t id : ids) {
      PartitionFile f;
      f.cache_id = static_cast<uint32_t>(id);
      f.partition = partition;
      out->caches.push_back(std::move(f));
    }
  }
  wal::IgnitePartitionFile::Reading how;
  how.shared_group = group.shared;
  how.rows = !group.metastorage;
  how.cancelled = options.cancelled;
  wal::IgnitePartitionFile::Outcome outcome;
  uint64_t unknown_cache = 0;
  WAL_RETURN_IF_ERROR(file->ReadRows(
      how,
      [&](const wal::PartitionRow& r) {
        const int32_t cache = group.shared ? r.cache_id : (ids.empty() ? group.id : ids.front());
        auto at = std::find(ids.begin(), ids.end(), cache);
        if (at == ids.end()) {
          if (unknown_cache++ == 0) {
            outcome.damage.push_back(
                {wal::ignite_page::PageIndexOf(r.link), 0,
                 fmt::format("a row of cache id {}, which group '{}' does not name (no {}cache_data.dat)", cache,
                             group.name, group.shared ? "<name>" : "")});
          }
          return;
        }
        if (options.hashes) {
          out->content_hash += RowHash(cache, r.row);
          out->ignite.Add(r.row);
        }
        ++out->rows;
        if (options.keep_rows) {
          auto& entries = out->caches[static_cast<size_t>(at - ids.begin())].entries;
          entries.push_back({CacheObject(r.row.key_type, r.row.key), CacheObject(r.row.value_type, r.row.value), 0});
        }
      },
      &outcome));
  if (unknown_cache > 1) {
    outcome.damage.back().what += fmt::format(" ({} such rows)", unknown_cache);
  }
  out->meta_read = outcome.meta_read;
  out->meta = outcome.meta;
  out->damage = std::move(outcome.damage);
  for (auto& f : out->caches) {
    f.lwm = f.hwm = out->meta_read ? out->meta.update_counter : 0;
    if (!options.sorted) continue;
    std::sort(f.entries.begin(), f.entries.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    auto same = [](const PartitionEntry& a, const PartitionEntry& b) { return a.key == b.key; };
    if (auto twice = std::adjacent_find(f.entries.begin(), f.entries.end(), same); twice != f.entries.end()) {
      out->damage.push_back({0, 0,
                             fmt::format("cache '{}' holds a key in more than one row (one kept)",
                                         IgniteCacheName(group, static_cast<int32_t>(f.cache_id)))});
      f.entries.erase(std::unique(f.entries.begin(), f.entries.end(), same), f.entries.end());
    }
  }
  return wal::Status::Ok();
}

}  // namespace recovery
