// The cluster check: from the per-node cut indexes (read from the WALs, or from summary
// files written on the nodes), prove each cut consistent or explain why it is not.
//
// Violation kinds: missing-start, missing-finish, finish-before-start, duplicate-record,
// duplicate-entry, both-sets, listed-not-committed, listed-after-finish,
// before-outside-range, side-split, side-mismatch, before-missing-on-participant,
// key-order, not-nested, base-mismatch, finish-without-start, finish-after-next-start.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcut/cut_index.h"

namespace cut {

enum class CutStatus { kConsistent, kInconsistent, kIncomplete, kUnverifiable };
const char* CutStatusName(CutStatus s);

struct Violation {
  std::string kind;
  std::optional<wal::TxId> xid;
  std::vector<std::string> nodes;
  std::string detail;  // records and pointers
};

struct CutNodeRow {
  std::string node;
  bool has_start = false;
  bool has_finish = false;
  wal::Pointer start, finish;
  size_t before = 0, after = 0;
};

struct CutReport {
  wal::Uuid id;
  CutStatus status = CutStatus::kConsistent;
  std::optional<uint32_t> increment;  // for consistent cuts: 1, 2, ... after their base
  std::string base;
  std::string reason;                 // why not consistent, in one line
  uint64_t start_ts = 0;              // earliest Start among the nodes
  uint64_t finish_ts = 0;             // latest Finish among the nodes
  std::vector<CutNodeRow> nodes;
  std::vector<Violation> violations;
};

struct ClusterReport {
  std::vector<CutReport> cuts;
  bool ok() const;
};

// `indexes`: the server nodes, in any order (they are taken in node order).
ClusterReport CheckCluster(const std::vector<NodeIndex>& indexes);

// The same check, pulling each node's cuts from its feed in step: a cut is checked as
// soon as every node has handed over its next cut (or reached its end), and what only
// that check needed is released, so memory is bounded by a few windows per node.
struct StreamedCluster {
  ClusterReport report;
  std::vector<NodeIndex> nodes;  // in node order; cuts without their transactions and sets
};
StreamedCluster CheckClusterStreaming(std::vector<std::unique_ptr<CutFeed>> feeds);

}  // namespace cut
