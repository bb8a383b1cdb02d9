// The per-node cut index: one pass over a node's WAL finds every base snapshot, every
// cut's Start and Finish, and, for each cut, the side of each transaction this node
// committed near it. Memory is bounded by the transactions committed between the
// previous cut's Start and the next cut's Start (the window the checks need), not by the
// length of the log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libwal/ids.h"
#include "libwal/status.h"
#include "libwal/wal_reader.h"

namespace cut {

enum class Side : uint8_t { kBefore, kAfter };

// One committed transaction seen in a cut's window on this node.
struct TxSide {
  wal::TxId xid;
  Side side = Side::kAfter;
  wal::Pointer commit;               // its COMMITTED TxRecord
  std::vector<uint16_t> participants;  // node orders: primaries and backups
};

// A problem visible from one node's WAL alone.
struct LocalProblem {
  std::string kind;   // see cluster_check.h for the vocabulary
  wal::TxId xid;      // when it concerns a transaction
  wal::Pointer at;    // the record it was found at
  std::string detail;
};

struct CutOnNode {
  wal::Uuid id;
  bool has_start = false;
  bool has_finish = false;
  wal::Pointer start;
  wal::Pointer finish;
  uint32_t topology_version = 0;
  uint64_t start_ts = 0;
  uint64_t finish_ts = 0;
  std::string base;                  // the full snapshot this cut is an increment of
  std::vector<wal::TxId> before;     // the Finish record's sets, as written
  std::vector<wal::TxId> after;
  std::vector<TxSide> txs;           // commits of the window, classified
  std::vector<LocalProblem> problems;
  // A read problem (corruption, missing segment) inside the window, with its address.
  std::optional<std::string> unverifiable;
};

struct BaseSnapshot {
  std::string name;
  wal::Pointer at;
  uint64_t timestamp = 0;
};

struct NodeIndex {
  std::string node;
  wal::Uuid node_id;
  uint16_t order = 0;
  std::vector<BaseSnapshot> snapshots;
  std::vector<CutOnNode> cuts;       // in the order of their first record
  std::vector<std::string> read_errors;  // every error issue of the WAL, located
  std::vector<wal::Pointer> read_error_at;  // where each of them is (not in summaries)
  wal::Pointer end;                  // just past the last record read
  uint64_t records = 0;
};

// The side of a transaction committed at `commit` on this node, by the seed rules
// (Before = committed before Start and not in `after`, or between Start and Finish and in
// `before`). Only meaningful for a cut with both records.
Side SideOf(const CutOnNode& cut, const wal::TxId& xid, const wal::Pointer& commit);

// Reads the node WAL of `wal_dir` once. Only failure to open is an error; every problem
// inside the WAL is recorded in the index.
wal::Result<NodeIndex> BuildNodeIndex(const std::string& node, const std::string& wal_dir);

}  // namespace cut
