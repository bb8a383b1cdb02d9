// The metadata Apache Ignite keeps for each incremental snapshot it completes, one file
// per baseline node: snapshots/<name>/increments/<index as 16 digits>/<folder>.smf, a
// Java serialization stream of its IncrementalSnapshotMetadata. Read by a small
// reader of that stream (objects, class descriptors, strings, references, primitive
// fields; nothing is instantiated), bounded in depth and size whatever the bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/ignite_snapshot.h"
#include "libwal/status.h"

namespace wal {

struct IgniteIncrementMeta {
  Uuid request_id;                // rqId: the id of the cut (its Start and Finish records)
  std::string snapshot;           // snpName: the full snapshot the increment follows
  uint32_t index = 0;             // incIdx: 1, 2, ... after that snapshot
  std::string consistent_id;      // consId
  std::string folder;             // folderName: the node's folder under db/wal
  uint64_t time_ms = 0;           // snapshotTime, when present
  std::optional<Pointer> finish;  // incSnpRec: the increment's Finish record in the node's WAL
};

// The folder Ignite keeps a node's files in (db/wal/<folder>, <folder>.smf): its
// consistent id with every character other than a letter, digit or underscore masked as
// '_' (server-0 -> server_0).
std::string IgniteFolderOf(std::string_view consistent_id);

// One .smf file's bytes. kCorruption (with what is wrong, and the offset) for bytes that
// are no Java stream of an IncrementalSnapshotMetadata, or lack one of its fields.
Result<IgniteIncrementMeta> ParseIgniteIncrementMeta(std::string_view bytes);

// A node's kept increments: every snapshots/*/increments/<16 digits>/<folder>.smf under
// its work directory, and the baseline of snapshots/*/<folder>.smf. `unreadable` names each such file that cannot be
// read, is no metadata, or disagrees with where it lies (another snapshot, index or folder than its path), with why:
// "<path>: <why>".
struct IgniteNodeIncrements {
  struct Kept {
    IgniteIncrementMeta meta;
    std::string path;
  };
  std::vector<Kept> kept;
  std::vector<std::string> unreadable;
  // From the full snapshots' metadata (<snapshot>/<folder>.smf): the node's consistent id
  // and every baseline node of those snapshots (sorted); empty when there is none.
  std::string consistent_id;
  std::vector<std::string> baseline;
};

// The name of the full snapshot in `dir` (snapshots/<name> or a copy of it) of node
// folder `folder`: its metadata's (<folder>.smf; a copy may have been renamed), or the
// directory's own name when the metadata cannot say.
std::string IgniteSnapshotNameOf(const std::string& dir, const std::string& folder);

IgniteNodeIncrements ReadIgniteIncrements(const std::string& work_dir, const std::string& folder);
// The same for one snapshot directory (snapshots/<name>, or a copy of it): its
// increments/<16 digits>/<folder>.smf; read as `*out` says.
void ReadIgniteSnapshotIncrements(const std::string& snapshot_dir, const std::string& folder,
                                  IgniteNodeIncrements* out);

}  // namespace wal
