// The order of a transaction's records on one node (walcut-format(5), TRANSACTIONS),
// stated once and followed by every reader that gives records a meaning (the cut
// index, restore, txs):
//
//   Each role a node has in a transaction (primary or backup of some of its keys) logs
//   a PREPARED TX_RECORD, then the DATA_RECORD_V2 entries of its writes, then one final
//   TX_RECORD: COMMITTED, UNKNOWN or ROLLED_BACK. Roles may interleave. Entries are
//   closed by the next final record of their transaction on the node.
//
// So an entry written while no role of its transaction is open (after its last final
// record, or with no PREPARED record) and a final record with no open role are out of
// order: never applied, never dropped without a word. A node's transactions are whole
// only from a ClusterSnapshotRecord on (a full snapshot is taken with nothing in flight),
// and only while its WAL is read without a gap: a reader calls Start() at each such
// record and starts over with a fresh TxOrder at a read error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcut/flat_table.h"
#include "libcut/hash.h"
#include "libwal/ids.h"

namespace cut {

class VarintWriter;
class VarintReader;

class TxOrder {
 public:
  // Checking starts here; records before are not looked at.
  void Start() { on_ = true; }
  bool started() const { return on_; }

  // Each returns an empty string when the record is in order, or else what is wrong
  // (a phrase naming the transaction). Entries of the null id 0.0.0 are an initial load,
  // written by no transaction: they belong before the first full snapshot.
  std::string OnPrepared(const wal::TxId& x);
  // `unprepared_rollback_ok`: a ROLLED_BACK record with no open role is in order (Ignite).
  std::string OnFinal(const wal::TxId& x, const char* state, bool unprepared_rollback_ok = false);
  std::string OnWrite(const wal::TxId& x);

  // Whether transaction `x` has a role still open (prepared, not finished) here.
  bool IsOpen(const wal::TxId& x) const;
  // Transactions with a role still open.
  size_t open() const { return open_.size(); }
  // f(xid) for each of them, in no order.
  template <typename F>
  void ForEachOpen(F&& f) const {
    open_.ForEach([&](const Entry& e) { f(e.xid); });
  }

  // The state, for a reading resumed later (NodeIndexStream checkpoints, index_state.cc).
  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  struct Entry {
    wal::TxId xid;
    uint32_t roles = 0;  // roles prepared and not yet finished
  };

  bool on_ = false;
  FlatTable<Entry, ByTxId<Entry>> open_;
  // The entries of one DATA record come together: each transaction's are checked once.
  wal::TxId last_write_;
  bool has_last_write_ = false;
};

}  // namespace cut
