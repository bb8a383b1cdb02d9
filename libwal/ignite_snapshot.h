// What Apache Ignite keeps of its caches on disk beside the page files: a node's page
// store (db/<folder>/ of a stopped node, or of a full snapshot: snapshots/<name>/db/
// <folder>/) with one directory per cache group, cache-<name> for a cache of its own
// and cacheGroup-<name> for a group of several, each holding part-N.bin files and the
// caches' stored configurations (cache_data.dat, or <cache name>cache_data.dat in a
// group: StoredCacheData, Java serialization); and the full snapshot's metadata
// (<consistent id>.smf: SnapshotMetadata). Read without a JVM, bounded whatever the
// bytes (java_stream.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace wal {

// Java's String.hashCode of a string given in UTF-8: over its UTF-16 code units.
int32_t JavaStringHash(std::string_view utf8);
// Ignite's id of a cache or cache group name (CU.cacheId): JavaStringHash of the name,
// 0 taken as 1.
int32_t IgniteCacheId(std::string_view name);

// What a cache's stored configuration says that walcut uses.
struct IgniteCacheConfig {
  std::string name;
  std::string group;      // empty: the cache is its own group
  std::string atomicity;  // "TRANSACTIONAL", "ATOMIC" (anything else is refused)
  std::string mode;       // "PARTITIONED", "REPLICATED"
  int32_t backups = 0;
  bool encrypted = false;   // encryptionEnabled
  std::string compression;  // diskPageCompression: "DISABLED" (or empty) when none
  bool Atomic() const { return atomicity == "ATOMIC"; }
};
// One cache_data.dat's bytes; kCorruption (what, where) when they are no StoredCacheData
// holding a CacheConfiguration with a name.
Result<IgniteCacheConfig> ParseIgniteCacheData(std::string_view bytes);

// One directory of a page store: a cache group's files.
struct IgniteGroupDir {
  std::string path;
  std::string name;     // the directory's name without cache- / cacheGroup-
  int32_t id = 0;       // IgniteCacheId(name); the MetaStorage group's for metastorage/
  bool shared = false;  // cacheGroup-: rows' caches are told apart by the data tree
  bool metastorage = false;
  struct Cache {
    std::string name;
    int32_t id = 0;
    std::optional<IgniteCacheConfig> config;  // unset when its file could not be read
    std::string problem;                      // why, then
  };
  std::vector<Cache> caches;  // by name
  // part-N.bin and index.bin, by partition (index.bin, 65535, last).
  std::vector<std::pair<uint32_t, std::string>> files;
  const Cache* FindCache(int32_t cache_id) const;
};

// The groups of a page store directory (db/<folder>/), by name; a directory of another
// name (cp/, snp/, ...) is not a group and the system cache (cache-ignite-sys-cache) is
// left out. Problems with a configuration file go to each cache's `problem`.
Result<std::vector<IgniteGroupDir>> ListIgniteGroups(const std::string& store_dir);

// A full snapshot's metadata on one node (<snapshot>/<masked consistent id>.smf).
struct IgniteSnapshotMeta {
  Uuid request_id;
  std::string snapshot;
  std::string consistent_id;
  std::string folder;
  std::vector<std::string> baseline;  // sorted
  uint32_t page_size = 0;
  std::vector<int32_t> groups;    // every group of the snapshot (MetaStorage's too)
  std::optional<Pointer> record;  // the CLUSTER_SNAPSHOT record in the node's WAL
  uint64_t time_ms = 0;
  bool encrypted = false;   // a master key digest: some group is encrypted
  bool compressed = false;  // hasComprGrps
  bool dump = false;
  bool only_primary = false;
  // The partitions this node saved, by group (index.bin as 65535).
  std::map<int32_t, std::vector<uint32_t>> partitions;
};
Result<IgniteSnapshotMeta> ParseIgniteSnapshotMeta(std::string_view bytes);

// The group id of Ignite's MetaStorage (its directory metastorage/).
int32_t IgniteMetastorageGroupId();

}  // namespace wal
