// Verify of Apache Ignite's page files, offline, as `control.sh --snapshot check NAME`
// checks a full snapshot (SnapshotPartitionsVerifyHandler), and more exactly: every page
// of every file its CRC and id, every row readable, each partition copy OWNING; per
// partition, each copy's update counter and content compared across the nodes, by
// walcut's content hash (which binds each key to its value) and Ignite's own pair of
// sums, whose values are reported for comparison with Ignite's output. Beyond Ignite's
// check: a baseline node whose files were not given, a partition listed in a node's
// metadata without its file, fewer copies than the cache keeps, and a partition meta
// page whose size is not the rows its pages hold, are each reported; none is an "ok".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "libwal/ignite_snapshot.h"
#include "recovery/ignite_hash.h"
#include "recovery/verify.h"

namespace recovery {

// One node's page store to verify.
struct IgniteVerifyNode {
  std::string node;  // its folder
  std::string store;
  std::optional<wal::IgniteSnapshotMeta> meta;  // a full snapshot's, or none for a node's own store
  std::string meta_problem;                     // why a snapshot's metadata is missing
};

// A partition copy as compared.
struct IgniteCopyState {
  std::string node;
  uint64_t counter = 0;
  int64_t size = 0;
  uint64_t rows = 0;
  uint64_t hash = 0;  // walcut's content hash
  IgnitePartitionHash ignite;
};

struct IgniteConflict {
  Conflict conflict;                    // `cache` holds the group id (0: of no group)
  std::string group;                    // its name, where known
  std::vector<IgniteCopyState> copies;  // of a counter or content conflict: every copy compared
};

struct IgniteVerifyReport {
  uint64_t nodes = 0;
  uint64_t partitions = 0;  // group partitions
  uint64_t files = 0;
  uint64_t pages = 0;
  uint64_t rows = 0;
  std::vector<IgniteConflict> conflicts;  // by group, partition and kind
};

struct IgniteVerifyOptions {
  std::vector<std::string> baseline;  // consistent ids the snapshot needs; empty: the nodes given
  std::vector<int32_t> groups;        // only these cache groups (verify --cache); empty: all
  unsigned threads = 0;               // 0: one per core
  std::function<void(uint64_t files)> progress;
  std::function<bool()> cancelled;
};

// kCancelled, or what makes the whole verify impossible; everything else is a conflict.
wal::Result<IgniteVerifyReport> VerifyIgniteStores(const std::vector<IgniteVerifyNode>& nodes,
                                                   const IgniteVerifyOptions& options);

}  // namespace recovery
