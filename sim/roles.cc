// A node's role in a transaction: its PREPARED, COMMITTED or ROLLED_BACK records.
#include "sim/cluster.h"

#include <algorithm>

#include <fmt/format.h>

namespace sim {

uint8_t& Cluster::StateOf(Group& g, uint32_t n, bool primary) {
  if (primary) return g.primary_state;
  size_t i = static_cast<size_t>(std::find(g.backups.begin(), g.backups.end(), n) - g.backups.begin());
  return g.backup_state[i];
}

void Cluster::LogPrepared(uint32_t n, Tx& t, Group& g, bool primary) {
  wal::TxRecord r;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) == n : IsBackupOf(n, res.partition)) {
      r.counters.push_back({kCacheId, res.partition, res.start, res.delta});
    }
  }
  r.state = wal::TxState::kPrepared;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags = t.one_phase ? wal::kTxFlagOnePhase : 0;
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRolePrepared;
  nodes_[n].cm->OnTxPrepared(t.xid);
}

void Cluster::CommitRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, const Uuid& stamp, bool recovery) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  Node& node = nodes_[n];
  wal::DataRecord d;
  d.timestamp = now_;
  if (value_scratch_.size() < g.keys.size()) value_scratch_.resize(g.keys.size());
  size_t vi = 0;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    uint32_t p = PartitionOf(a);
    if (primary ? PrimaryOf(p) != n : !IsBackupOf(n, p)) continue;
    std::string& v = value_scratch_[vi++];
    fmt::format_int f(t.new_balance[ki]);
    v.assign(f.data(), f.size());
    if (!t.exists[ki]) v.clear();
    wal::DataEntry e;
    e.cache_id = kCacheId;
    e.partition = p;
    e.counter = t.counter[ki];
    e.op = !t.exists[ki] ? wal::EntryOp::kDelete : t.existed[ki] ? wal::EntryOp::kUpdate : wal::EntryOp::kCreate;
    e.flags = primary ? wal::kEntryFlagPrimary : 0;
    e.xid = t.xid;
    e.write_version = TxId{t.topver, nodes_[g.primary].order, t.xid.order};
    e.key = key_name_[a];
    e.value = v;
    d.entries.push_back(e);
    // A copy applies a key write only if it is newer than what it holds (backups may
    // receive two transactions on one key in either order).
    if (t.counter[ki] > node.key_counter[a]) {
      node.key_counter[a] = t.counter[ki];
      node.balance[a] = t.exists[ki] ? t.new_balance[ki] : 0;
      node.open[a] = t.exists[ki];
    }
  }
  Log(n, d);
  const bool unknown = group == t.unknown_group && n == t.unknown_node;
  wal::TxRecord r;
  r.state = unknown ? wal::TxState::kUnknown : wal::TxState::kCommitted;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags =
      static_cast<uint8_t>((t.one_phase ? wal::kTxFlagOnePhase : 0) | (recovery ? wal::kTxFlagRecoveryFinish : 0));
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRoleCommitted;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) == n : IsBackupOf(n, res.partition)) {
      Check(node.parts[res.partition].tracker.Update(res.start, res.delta));
    }
  }
  cut::TxFinish f;
  f.xid = t.xid;
  f.outcome = unknown ? cut::TxOutcome::kUnknown : cut::TxOutcome::kCommitted;
  f.tx_cut_id = stamp;
  f.topology_version = t.topver;
  f.recovery_finish = recovery;
  node.cm->OnTxFinished(f, now_);
}

void Cluster::RollbackRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, bool recovery) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  Node& node = nodes_[n];
  wal::TxRecord r;
  r.state = wal::TxState::kRolledBack;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags = recovery ? wal::kTxFlagRecoveryFinish : 0;
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRoleRolledBack;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) != n : !IsBackupOf(n, res.partition)) continue;
    Log(n, wal::RollbackRecord{kCacheId, res.partition, res.start, res.delta});
    Check(node.parts[res.partition].tracker.Update(res.start, res.delta));
  }
  cut::TxFinish f;
  f.xid = t.xid;
  f.outcome = cut::TxOutcome::kRolledBack;
  f.topology_version = t.topver;
  f.recovery_finish = recovery;
  node.cm->OnTxFinished(f, now_);
}

}  // namespace sim
