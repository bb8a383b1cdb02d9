// snapshot.json: a full snapshot's metadata on one node (NODE/snapshots/NAME/), written
// when the snapshot is taken and read by restore. Schema 1, sealed with a checksum of
// its own (json_doc.h); walcut-format(5), SNAPSHOTS.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace recovery {

struct SnapshotMeta {
  std::string name;      // the snapshot's name, a safe file name (cut::IsSafeName)
  std::string node;      // the node it was taken on
  wal::Pointer pointer;  // its CLUSTER_SNAPSHOT record in the node's WAL
  uint32_t topology_version = 0;
  uint64_t timestamp = 0;
};

inline constexpr const char* kSnapshotFileName = "snapshot.json";

std::string EncodeSnapshotFile(const SnapshotMeta& meta);
// Reads and validates DIR/snapshot.json: kNotFound when absent; kCorruption naming the
// file and the field when not schema 1, not sealed right, or a field is missing, of the
// wrong type or out of range.
wal::Result<SnapshotMeta> ReadSnapshotFile(const std::string& dir);
// The same from the file's text; `path` names it in messages.
wal::Result<SnapshotMeta> ParseSnapshotFile(std::string_view text, const std::string& path);

}  // namespace recovery
