// Which cuts a node keeps as increments, from metadata outside its WAL. Apache Ignite
// keeps an increment it completed as one metadata file per baseline node; a cut whose
// Start and Finish records every node wrote is still no increment when Ignite failed it
// for a reason outside the WAL (a node left, a rebalance with the WAL disabled).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "libwal/ids.h"

namespace cut {

struct KeptIncrement {
  wal::Uuid cut;                       // the cut's id
  std::string snapshot;                // the full snapshot it follows
  uint32_t index = 0;                  // 1, 2, ... after that snapshot
  std::optional<wal::Pointer> finish;  // where its metadata says the node's Finish record is
  std::string path;                    // the metadata file, for messages
};

// The metadata of one node. `unreadable`: each metadata file that could not be read or
// is not what its place says, with why (it may have named any cut).
struct NodeKept {
  std::string node;
  std::vector<KeptIncrement> kept;
  std::vector<std::string> unreadable;
  std::string consistent_id;          // the node's own, when its metadata says
  std::vector<std::string> baseline;  // every node its snapshots were taken on (consistent ids)
  // False for a node with no metadata at all (no snapshots/ folder): it counts only beside
  // nodes that have some (then its `unreadable` says what is missing).
  bool has_metadata = true;
};

// The kept increments a check takes from `nodes` (every Apache Ignite node given): all of
// them when one has metadata, else none (nullopt: the cuts are not matched with metadata,
// and a node without a snapshots/ folder is then not missing anything).
std::optional<std::vector<NodeKept>> KeptWhenAnyHasMetadata(std::vector<NodeKept> nodes);

// First, each kept increment is held to the WAL where the report saw what it names: the
// Finish record its metadata points at must be of its cut, and its cut's Finish record
// where it points; every node's metadata of one cut must name one snapshot and index, the
// snapshot the cut follows in the WAL. A file that disagrees is unreadable (its field and
// the record named), so the cut it might name is unverifiable.
// Then, for each consistent cut of `report`: when every node of `nodes` keeps it, it takes
// that increment's snapshot and index; when one does not and none of those has an
// unreadable file, it is incomplete (not-kept); otherwise it is unverifiable
// (unreadable-metadata). Each unreadable file is also a problem of its node, and each
// baseline node of the snapshots none of `nodes` is (by consistent id, or by the folder
// Ignite names for it) is a problem (not-given), in the order of `node_order` (the
// nodes' names, as the report's problems are).
void ApplyKeptIncrements(std::vector<NodeKept> nodes, const std::vector<std::string>& node_order,
                         ClusterReport* report);

}  // namespace cut
