// Partition update-counter gaps of a node, found by replaying its WAL: per partition copy
// the LWM, the HWM (the highest counter applied, rolled back or reserved by a PREPARED
// record) and the ranges in between never applied, each with the transaction that
// reserved it when a PREPARED record names one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "libwal/ids.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace recovery {

enum class GapFate {
  kNoOwner,     // no PREPARED record here names these counters
  kRolledBack,  // its transaction rolled back here, but no RollbackRecord closed them
  kPrepared,    // its transaction prepared here and never finished
  kUnknown,     // its transaction ended in the UNKNOWN state
  kCommitted,   // its transaction committed here without applying them (damage)
};
const char* GapFateName(GapFate f);

struct CounterGap {
  uint64_t first = 0, last = 0;  // counters first..last
  std::optional<wal::TxId> xid;
  GapFate fate = GapFate::kNoOwner;
  bool committed_elsewhere = false;  // filled in by the cluster pass
};

struct CopyGaps {
  uint32_t cache = 0, partition = 0;  // Apache Ignite: a shared cache group's id when `group`
  bool group = false;
  uint64_t lwm = 0, hwm = 0;
  // Apache Ignite: the highest LWM a partition meta page in the WAL showed (0: none).
  uint64_t meta_lwm = 0;
  // Counters 1..unread_below were before the WAL's first record (its first segments are
  // gone) and before any LWM read: not known, so not reported as gaps (0: none).
  uint64_t unread_below = 0;
  std::vector<CounterGap> gaps;
};

struct NodeGaps {
  std::string node;
  wal::WalLocation wal_dir;
  uint64_t first_segment = 0;    // of its WAL: above 0, the history before it is gone (Ignite)
  std::vector<CopyGaps> copies;  // by (cache, partition)
  std::vector<std::string> errors;
  bool torn_tail = false;
  std::string torn_tail_text;        // the reader's words for it
  std::vector<wal::TxId> committed;  // with `collect_committed`: every transaction committed here, in WAL order
};

// A partition's LWM in a full snapshot's page files (its meta page).
struct PartitionLwm {
  uint32_t group = 0, partition = 0;
  uint64_t lwm = 0;
};

struct GapScanOptions {
  // Also list the transactions committed on the node, for the gaps of the others
  // (MarkCommittedElsewhere).
  bool collect_committed = false;
  // Apache Ignite's WAL: a partition's counters are its cache group's, shared by the
  // group's caches; `group_of` maps the id of each cache of a shared group to the
  // group's (any other cache is its own group). The LWM of each partition meta page the
  // WAL holds (a checkpoint's page image or delta) marks every counter up to it applied,
  // and PARTITION_DESTROY starts a partition's counters again. When the WAL's first
  // segment is not 0, the counters below the first one a copy's records show are not
  // known (CopyGaps::unread_below).
  bool ignite = false;
  std::unordered_map<uint32_t, uint32_t> group_of;
  // Apache Ignite: the LWMs of the node's full snapshots, by snapshot name: every counter
  // up to them applied, from the WAL's first record and again at the snapshot's
  // CLUSTER_SNAPSHOT record (after which the WAL shows every counter).
  std::map<std::string, std::vector<PartitionLwm>> snapshot_lwms;
};

// Reads the node WAL of `wal_dir` once.
wal::Result<NodeGaps> ScanGaps(const std::string& node, const wal::WalLocation& wal_dir,
                               const GapScanOptions& options = {});

// A transaction that committed on another node must not have its counters closed: marks
// every gap whose owner some other node of `nodes` committed (scanned with
// collect_committed).
void MarkCommittedElsewhere(std::vector<NodeGaps>& nodes);

}  // namespace recovery
