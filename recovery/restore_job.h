// Writing a restore out: every node of a plan restored (nodes in parallel, each written
// as soon as it is done), the partition files, cluster.json and restore.json; the output
// verified as `walcut verify` would, and refused when its copies disagree; made durable
// at once (StagedOutput::SyncAll) and published so that an interrupted restore never
// leaves output that looks complete, and a rerun succeeds.
//
// Publication is wal::StagedOutput's: OUT.partial renamed to OUT, or an empty OUT written
// in place, with a marker file while unfinished.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libcut/cluster_file.h"
#include "recovery/manifest_file.h"
#include "recovery/restore.h"
#include "recovery/verify.h"

namespace recovery {

struct RestoreJob {
  std::string out;
  unsigned jobs = 0;                                   // nodes restored at once; 0: one per core
  bool force = false;                                  // keep output whose copies disagree, marked so
  std::vector<std::string> only_nodes;                 // the plan's nodes, when limited by the user
  std::vector<uint32_t> only_caches, only_partitions;  // the plan's subset (NodePlan), recorded
  // Of Apache Ignite's WAL: the folders of its binary metadata (db/binary_meta/<node>),
  // whose .bin files are copied to OUT/binary_meta, so the restored objects can be named.
  std::vector<std::string> binary_meta_dirs;
  // Of Apache Ignite: each cache's name, and the ATOMIC caches (their configuration
  // files'), written into the output's cluster.json; the copies of an ATOMIC cache may
  // differ after the restore as after Ignite's own: a warning each, not a refusal.
  std::map<uint32_t, std::string> cache_names;
  std::set<uint32_t> atomic_caches;
  ProgressFn progress;
  const std::atomic<bool>* cancel = nullptr;  // set: stop, remove the output, kCancelled
};

struct RestoreOutcome {
  RestoreManifest manifest;
  std::vector<size_t> partitions;     // per node of the manifest: partition files written
  std::vector<Conflict> conflicts;    // what verify found (only with force)
  std::vector<std::string> warnings;  // binary metadata files that could not be copied;
                                      // the copies of ATOMIC caches that differ
};

// kAlreadyExists for an OUT that exists and is neither an empty directory nor an
// unfinished restore; kInvalidArgument for an OUT.partial that walcut did not make;
// a node's replay error; kCorruption listing the partitions whose copies disagree;
// kIoError; kCancelled. On any of them, nothing of the output is left.
// `cluster` is written as the output's cluster.json; null for a plan of Apache Ignite's
// WAL, which describes no cluster: the file is then derived from what was restored
// (DeriveIgniteCluster).
wal::Result<RestoreOutcome> WriteRestore(const RestorePlan& plan, const cut::ClusterInfo* cluster,
                                         const RestoreJob& job);

// The cluster.json of a restore of Ignite's WAL: its servers the nodes restored (in the
// plan's order, their ids derived from their names: Ignite's segment headers name no
// node), its caches those written (named, and marked ATOMIC, as `job` says), each with a
// placement of its own: for each partition, the nodes that restored a copy of it. One
// topology version, 0.
cut::ClusterInfo DeriveIgniteCluster(const RestorePlan& plan, const RestoreManifest& manifest, const RestoreJob& job);

// Whether WriteRestore refused its output because the copies disagree (what
// RestoreJob::force would keep), rather than for damage or an error.
bool IsDisagreement(const wal::Status& status);

// The WAL bytes the plan replays, from the sizes of its segment files (a compressed file
// counts by its size on disk: an estimate, for progress).
uint64_t EstimateReplayBytes(const RestorePlan& plan);

}  // namespace recovery
