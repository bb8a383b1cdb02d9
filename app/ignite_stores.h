// Where Apache Ignite's page files are, given what a user names on the command line:
//   - a snapshot directory (snapshots/NAME, or a copy of it from a node): each
//     db/<folder>/ in it is a node's part of the full snapshot, with <folder>'s .smf;
//   - a work directory (holding db/), or a node directory holding work/: with a snapshot
//     name, its snapshots/NAME; otherwise the stopped node's own page store,
//     db/<folder>/;
//   - a directory of such node or work directories (as copied from every node).
// Several paths add up; a node found twice is refused.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/inputs.h"
#include "libwal/ignite_snapshot.h"
#include "libwal/status.h"
#include "recovery/gaps.h"

namespace app {

struct IgniteNodeStore {
  std::string node;          // its folder (server_0)
  std::string store;         // db/<folder>/
  std::string snapshot_dir;  // the full snapshot's directory; empty for a node's own store
  // A full snapshot's metadata of the node (<snapshot dir>/<folder>.smf), or why not.
  std::optional<wal::IgniteSnapshotMeta> meta;
  std::string meta_problem;
  // Where binary types are described (db/binary_meta/<folder>), in the order to read them.
  std::vector<std::string> binary_meta;
};

struct IgniteStores {
  std::vector<IgniteNodeStore> nodes;  // by folder
  std::string snapshot;                // the full snapshot's name; empty for nodes' own stores
  // Every node the snapshots' metadata names as the baseline (sorted consistent ids),
  // and the folder of each whose metadata was read.
  std::vector<std::string> baseline;
};

// kNotFound for a path that does not exist; kInvalidArgument, saying what was expected
// (and which snapshots a work directory holds), for a path that holds no page files.
wal::Result<IgniteStores> ResolveIgniteStores(const std::vector<std::string>& paths, const std::string& snapshot);

// Whether `path` is Ignite input for data and verify (any of the kinds above, with or
// without page files), so that walcut's own directories take the other way.
bool IsIgniteStoreInput(const std::string& path);

// What an Ignite node's page files tell the commands that read its WAL (`gaps`), given
// the node as a WAL input (inputs.h): its page store (db/<folder>/ of its work
// directory) and each full snapshot of it (snapshots/*/db/<folder>/ of its work
// directory, or the snapshot directory given).
//
// What the configuration files (cache_data.dat) say of each cache, by id.
struct IgniteCacheFacts {
  std::string name;
  uint32_t group = 0;   // its group's id (its own when it is its own group)
  bool shared = false;  // in a cacheGroup-<name> of several caches
  bool atomic = false;  // atomicityMode ATOMIC
};
std::map<uint32_t, IgniteCacheFacts> IgniteCachesOf(const WalInput& in);
// The caches that share a cache group (cacheGroup-<name>), each cache's id to its
// group's: a partition's update counters are its group's.
std::unordered_map<uint32_t, uint32_t> IgniteSharedGroupsOf(const WalInput& in);
// Each full snapshot's LWM of every partition (the meta page of each part-N.bin whose
// CRC is sound), by the snapshot's name.
std::map<std::string, std::vector<recovery::PartitionLwm>> IgniteSnapshotLwmsOf(const WalInput& in);

}  // namespace app
