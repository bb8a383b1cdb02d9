// cluster.json: who the cluster's nodes are, its caches, and which servers held each
// partition at each topology version. The simulator writes it, restore copies it, and
// check, restore, verify and txs read it, all through this one module (schema 1; the
// fields are in walcut(1), section FILES).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace cut {

struct ClusterNode {
  std::string name;  // a safe file name (IsSafeName): it names a directory
  bool server = true;
  wal::Uuid id;        // the node id its WAL's segment headers carry
  uint16_t order = 0;  // join order, the compact id of participant lists
  uint32_t joined_version = 0;
  std::optional<uint32_t> left_version;  // the version its leave made, if it left
};

struct CacheInfo {
  uint32_t id = 0;
  std::string name;
  uint32_t partitions = 0;
  uint32_t backups = 0;
  // Apache Ignite's ATOMIC cache (a restore's): its copies may differ after a restore,
  // as Ignite's own restore leaves them (no consistency across a cut).
  bool atomic = false;
  // A placement of its own, overriding the topology versions' (a restore of Apache
  // Ignite's WAL, where each cache has its own affinity): assignment[p] the servers
  // holding partition p of this cache. Empty: the versions' assignment.
  std::vector<std::vector<std::string>> assignment;
};

struct TopologyInfo {
  uint32_t version = 0;
  std::string event;                 // what made this version ("node-1 left")
  std::vector<std::string> servers;  // alive at this version
  std::vector<std::string> clients;
  // assignment[p]: the servers holding partition p (of every cache), primary first.
  std::vector<std::vector<std::string>> assignment;
};

struct ClusterInfo {
  std::string seed;
  std::vector<ClusterNode> nodes;
  std::vector<CacheInfo> caches;
  uint64_t accounts = 0;
  int64_t initial_balance = 0;
  std::vector<TopologyInfo> versions;  // increasing

  const ClusterNode* FindNode(std::string_view name) const;
  // The server names, in the order of the file (node order).
  std::vector<std::string> ServerNames() const;
  // Version `v`, or else the latest one before it; nullptr if there is none.
  const TopologyInfo* FindVersion(uint32_t v) const;
  // Whether server `n` was part of the cluster at version `v`: joined at or before it
  // and not left at or before it.
  static bool MemberAt(const ClusterNode& n, uint32_t v);
};

inline constexpr const char* kClusterFileName = "cluster.json";

// Reads and validates DIR/cluster.json: the schema version (1; another is kNotSupported),
// every required key, types, ranges (orders 1..65535, at most 65535 nodes and caches),
// unique names, ids and orders, safe node names, and that every version's servers and
// assignment name servers of the file. kNotFound when the file is absent; kCorruption
// naming the file and the field otherwise.
wal::Result<ClusterInfo> ReadClusterFile(const std::string& dir);
wal::Result<ClusterInfo> ParseClusterFile(std::string_view text, const std::string& path);
// The file's text (2-space indented JSON). A version's event and clients are written
// only when there is more than one version.
std::string EncodeClusterFile(const ClusterInfo& info);

}  // namespace cut
