// What each node did with each transaction (walcut txs): its TX_RECORDs by state, its
// commits, the partition counters it wrote, and the participants its first TX_RECORD
// names, read in the same pass as the node's cut index. Memory follows the number of
// transactions (and their writes), not the length of the WAL.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcut/cut_index.h"
#include "libcut/flat_table.h"
#include "libcut/hash.h"
#include "libwal/record.h"

namespace cut {

// One transaction on one node. A node logs one set of TX_RECORDs per role it has in
// the transaction.
struct TxOnNode {
  wal::TxId xid;
  uint32_t prepared = 0, committed = 0, rolled_back = 0, unknown = 0;
  uint32_t commits_begin = 0, commits_count = 0;  // in NodeTxs::commits, in WAL order
  uint32_t writes_begin = 0, writes_count = 0;    // in NodeTxs::writes, sorted, unique
  // The participants of its first TX_RECORD here that names any: `participants_count`
  // groups in NodeTxs::participants from `participants_begin`, each a primary, the
  // number of its backups, and the backups (node orders).
  uint32_t participants_begin = 0;
  uint16_t participants_count = 0;

  bool has_record() const { return prepared + committed + rolled_back + unknown != 0; }
  // PREPARED while any role is unfinished, else the roles' outcome (UNKNOWN first);
  // nothing when the node has writes of the transaction but no TX_RECORD.
  std::optional<wal::TxState> state() const;
};

struct PartitionCounter {
  uint32_t partition = 0;
  uint64_t counter = 0;
  auto operator<=>(const PartitionCounter&) const = default;
};

// A node's transactions, sorted by id, with its cut index.
struct NodeTxs {
  NodeIndex index;
  std::vector<TxOnNode> txs;
  std::vector<wal::Pointer> commits;
  std::vector<uint64_t> commit_ts;  // each commit's TX_RECORD timestamp (ns), as commits
  std::vector<PartitionCounter> writes;
  std::vector<uint16_t> participants;
};

// Collects a node's transactions from its records, given in WAL order (a RecordTap of
// the node's cut index, so one pass reads both). `only`: collect that transaction alone.
class TxCensus {
 public:
  explicit TxCensus(const std::optional<wal::TxId>& only);
  ~TxCensus();
  void OnRecord(const wal::Record& r);
  // The transactions, sorted by id (out->index is left as it is).
  void Finish(NodeTxs* out);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cut
