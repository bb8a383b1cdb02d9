// A node's Apache Ignite page store (db/<folder>/ of a full snapshot or of a stopped
// node) read as partition copies: each partition file of a cache group gives one copy
// of the group's partition, its counter and size from the partition meta page, its
// rows by cache (keys and values as cache objects, their type byte first, as a restore
// of Ignite's WAL keeps them in partition files), and the hashes copies are compared by.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libwal/ignite_partition_file.h"
#include "libwal/ignite_snapshot.h"
#include "libwal/status.h"
#include "recovery/ignite_hash.h"
#include "recovery/partition_file.h"

namespace recovery {

struct IgniteCopy {
  const wal::IgniteGroupDir* group = nullptr;
  uint32_t partition = 0;
  std::string path;
  bool meta_read = false;
  wal::ignite_page::PartitionMeta meta;
  uint64_t rows = 0;
  uint64_t pages = 0;
  std::vector<wal::PageDamage> damage;
  // Each cache of the group, in the group's order, even with no row here: its rows as
  // a partition file (the counter the group partition's; each entry's counter 0, a row
  // of a page file having none), when rows are kept.
  std::vector<PartitionFile> caches;
  // walcut's hash of the copy: the sum of XXH3 over each row's cache id, key, value and
  // version, so independent of the rows' order and binding each key to its value.
  uint64_t content_hash = 0;
  IgnitePartitionHash ignite;
};

struct IgniteCopyOptions {
  bool keep_rows = true;  // else only the hashes and counts
  // content_hash and ignite; false: left 0 (a restore compares no hashes of its base).
  bool hashes = true;
  // Each cache's entries sorted by key, a key in two rows told as damage and one of them
  // dropped; false: in the file's order, all of them (the caller tells a key in two rows).
  bool sorted = true;
  std::function<bool()> cancelled;
};

// One partition file of `group`: kNotSupported (naming the file and why) for what walcut
// does not read: an encrypted cache, a cache whose atomicity mode is neither
// TRANSACTIONAL nor ATOMIC (MVCC), compressed pages; kCancelled; an unreadable file's
// status. Damage inside the file is in the copy's `damage`, and a row of a shared group
// whose cache id is none of the group's caches is damage too. Index and metastorage
// files give no rows: their pages are only checked.
wal::Status ReadIgniteCopy(const wal::IgniteGroupDir& group, uint32_t partition, const std::string& path,
                           const IgniteCopyOptions& options, IgniteCopy* out);

// The readable name of a cache of `group` ("bank"), or its id when it has none.
std::string IgniteCacheName(const wal::IgniteGroupDir& group, int32_t cache_id);

}  // namespace recovery
