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
  std::string wal_dir;
  std::vector<CopyGaps> copies;  // by (cache, partition)
  std::vector<std::string> errors;
  bool torn_tail = false;
};

wal::Result<NodeGaps> ScanGaps(const std::string& node, const std::string& wal_dir);

// Which of `xids` some COMMITTED TxRecord of `wal_dir` names.
wal::Result<std::vector<wal::TxId>> CommittedAmong(const std::string& wal_dir, const std::vector<wal::TxId>& xids);

}  // namespace recovery
