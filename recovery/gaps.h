// Partition update-counter gaps of a node, found by replaying its WAL: per partition copy
// the LWM, the HWM (the highest counter applied, rolled back or reserved by a PREPARED
// record) and the ranges in between never applied, each with the transaction that
// reserved it when a PREPARED record names one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
  uint32_t cache = 0, partition = 0;
  uint64_t lwm = 0, hwm = 0;
  std::vector<CounterGap> gaps;
};

struct NodeGaps {
  std::string node;
  wal::WalLocation wal_dir;
  std::vector<CopyGaps> copies;  // by (cache, partition)
  std::vector<std::string> errors;
  bool torn_tail = false;
  std::string torn_tail_text;        // the reader's words for it
  std::vector<wal::TxId> committed;  // with `collect_committed`: every transaction committed here, in WAL order
};

// Reads the node WAL of `wal_dir` once. `collect_committed`: also list the transactions
// committed on the node, for the gaps of the others (MarkCommittedElsewhere).
wal::Result<NodeGaps> ScanGaps(const std::string& node, const wal::WalLocation& wal_dir, bool collect_committed = false);

// A transaction that committed on another node must not have its counters closed: marks
// every gap whose owner some other node of `nodes` committed (scanned with
// collect_committed).
void MarkCommittedElsewhere(std::vector<NodeGaps>& nodes);

}  // namespace recovery
