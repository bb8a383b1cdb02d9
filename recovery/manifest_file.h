// restore.json: what a restore wrote, from what, with the checksum of every partition
// file, so that verify can tell a restored directory from a damaged one. Written by the
// restore, read by verify; schema 1, sealed with a checksum of its own (json_doc.h).
// The fields are in walcut-restore(1), OUTPUT.
#pragma once

#include <algorithm>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace recovery {

struct ManifestEntry {
  std::string file;       // a partition file name (partition_file.h)
  uint64_t checksum = 0;  // FileChecksum of its bytes
  uint64_t counter = 0;
  uint64_t hash = 0;  // ContentHash
};

struct ManifestNode {
  std::string node;
  wal::Pointer read_from, read_to;
  uint64_t txs_applied = 0;
  uint64_t txs_skipped = 0;
  uint64_t entries = 0;
  uint64_t rollbacks_applied = 0;
  uint64_t gaps_closed = 0;
  std::vector<ManifestEntry> files;
};

struct RestoreManifest {
  // What was restored: walcut's own WAL, or Apache Ignite's (its partition files then
  // hold Ignite's cache objects, and binary_meta/ their types).
  bool ignite = false;
  wal::Uuid cut;
  uint32_t increment = 0;
  std::string base;
  uint32_t topology_version = 0;
  uint64_t finish_ts = 0;
  // The nodes asked for with --node; empty when every node of the cut was restored.
  std::vector<std::string> only_nodes;
  // The caches and partitions asked for with --cache and --partition; empty: all.
  std::vector<uint32_t> only_caches, only_partitions;
  // Whether copies of cache `c`, partition `p` were restored (the subset above).
  bool Selected(uint32_t c, uint32_t p) const {
    return (only_caches.empty() || std::find(only_caches.begin(), only_caches.end(), c) != only_caches.end()) &&
           (only_partitions.empty() ||
            std::find(only_partitions.begin(), only_partitions.end(), p) != only_partitions.end());
  }
  // Kept with --force although the copies did not all agree; `conflicts` says how.
  bool forced = false;
  std::vector<std::string> conflicts;
  std::vector<ManifestNode> nodes;
};

inline constexpr const char* kManifestFileName = "restore.json";

std::string EncodeManifest(const RestoreManifest& m);
// Reads and validates DIR/restore.json: kNotFound when absent; kCorruption naming the
// file and the field when not schema 1, not sealed right, or not valid.
wal::Result<RestoreManifest> ReadManifest(const std::string& dir);
// The same from the file's text; `path` names it in messages.
wal::Result<RestoreManifest> ParseManifest(std::string_view text, const std::string& path);

}  // namespace recovery
