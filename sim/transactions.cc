// The transaction protocol: a transfer's start, prepare and finish, 1PC and 2PC.
#include "sim/cluster.h"

#include <algorithm>

namespace sim {

// A slot is handed out again only when the near node is done with the transaction and
// no message refers to it any more (backups may still be committing).
void Cluster::MaybeFree(uint32_t tx) {
  Tx& t = txs_[tx];
  if (t.live || t.pending != 0 || t.freed) return;
  t.freed = true;
  free_slots_.push_back(tx);
}

void Cluster::StartTx(uint32_t near) {
  if (started_txs_ >= c_.txs || !status_.ok()) return;
  if (!nodes_[near].alive) {
    if (!nodes_[near].joined) ++deferred_starts_;  // a scenario's near node joins later
    return;
  }
  if (Blocked()) {
    ++deferred_starts_;  // started when the exchange or the full snapshot is over
    return;
  }
  ++started_txs_;
  const uint32_t slot = NewTx(near);
  Tx& t = txs_[slot];
  ChooseAccounts(t);
  GroupByPrimary(t);
  // Locks are taken primary by primary in node order: no cycle can form.
  t.locks_pending = static_cast<uint32_t>(t.groups.size());
  t.groups[0].lock_requested = true;
  Send(MsgType::kLockRequest, near, t.groups[0].primary, slot, 0, false, {});
  Event timeout;
  timeout.kind = EventKind::kLockTimeout;
  timeout.tx = slot;
  timeout.gen = t.gen;
  timeout.time = now_ + static_cast<uint64_t>(c_.lock_timeout_ms * 1e6);
  Push(timeout);
}

// A slot for a new transaction started by `near` (a free one reused), its state reset.
uint32_t Cluster::NewTx(uint32_t near) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(txs_.size());
    txs_.emplace_back();
  }
  Tx& t = txs_[slot];
  ++t.gen;
  t.live = true;
  t.freed = false;
  t.pending = 0;
  Node& nn = nodes_[near];
  t.near = near;
  t.topver = nn.seen_topver;
  t.xid = TxId{t.topver, nn.order, ++nn.local_order};
  t.started_at = now_;
  t.rolled_back = t.timed_out = t.preparing = false;
  t.stamp = {};
  t.recovered = false;
  t.decided = 0;
  t.unknown_group = t.unknown_node = kNone;
  return slot;
}

// Distinct accounts; the lock order of StartTx makes the choice deadlock-free.
void Cluster::ChooseAccounts(Tx& t) {
  const uint32_t k = !c_.fixed_accounts.empty()
                         ? static_cast<uint32_t>(c_.fixed_accounts.size())
                         : std::min<uint32_t>(std::max<uint32_t>(c_.keys_per_tx, 2), c_.accounts);
  t.accounts = c_.fixed_accounts;
  while (t.accounts.size() < k) {
    auto a = static_cast<uint32_t>(rng_.Below(c_.accounts));
    if (std::find(t.accounts.begin(), t.accounts.end(), a) == t.accounts.end()) t.accounts.push_back(a);
  }
  t.new_balance.assign(k, 0);
  t.existed.assign(k, 1);
  t.exists.assign(k, 1);
  t.counter.assign(k, 0);
}

// One group per primary of the accounts' partitions, in node order, with the backups of
// its partitions; the transaction's participants follow the groups.
void Cluster::GroupByPrimary(Tx& t) {
  for (auto& g : t.groups) {
    g.keys.clear();
    g.backups.clear();
    g.reservations.clear();
  }
  size_t ngroups = 0;
  for (uint32_t i = 0; i < t.accounts.size(); ++i) {
    uint32_t p = PartitionOf(t.accounts[i]);
    uint32_t prim = PrimaryOf(p);
    size_t gi = 0;
    while (gi < ngroups && t.groups[gi].primary != prim) ++gi;
    if (gi == ngroups) {
      if (t.groups.size() <= ngroups) t.groups.emplace_back();
      Group& g = t.groups[ngroups++];
      g.primary = prim;
      g.keys.clear();
      g.backups.clear();
      g.reservations.clear();
    }
    Group& g = t.groups[gi];
    g.keys.push_back(i);
    for (size_t b = 1; b < assignment_[p].size(); ++b) {
      uint32_t bn = assignment_[p][b];
      if (std::find(g.backups.begin(), g.backups.end(), bn) == g.backups.end()) g.backups.push_back(bn);
    }
  }
  t.groups.resize(ngroups);
  std::sort(t.groups.begin(), t.groups.end(), [](const Group& a, const Group& b) { return a.primary < b.primary; });
  t.participants.clear();
  for (auto& g : t.groups) {
    g.waiting_locks = 0;
    g.lock_requested = g.locked = false;
    g.backup_acks = 0;
    g.primary_prepared = g.primary_finished = false;
    g.primary_state = kRoleNone;
    g.backup_state.assign(g.backups.size(), kRoleNone);
    wal::Participant p;
    p.primary = nodes_[g.primary].order;
    for (uint32_t b : g.backups) p.backups.push_back(nodes_[b].order);
    t.participants.push_back(std::move(p));
  }
  t.one_phase = t.groups.size() == 1 && t.groups[0].backups.size() <= 1;
}

void Cluster::Prepare(uint32_t tx) {
  Tx& t = txs_[tx];
  t.preparing = true;
  t.responses_pending = static_cast<uint32_t>(t.groups.size());
  (t.one_phase ? summary_.one_phase : summary_.two_phase)++;
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    Send(MsgType::kNearPrepareRequest, t.near, t.groups[gi].primary, tx, gi, false, {});
  }
}

void Cluster::OnNearPrepareRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  Node& n = nodes_[e.to];
  // Reserve counters per partition: the keys of one partition get consecutive ones.
  g.reservations.clear();
  for (uint32_t ki : g.keys) {
    uint32_t p = PartitionOf(t.accounts[ki]);
    auto it = std::find_if(g.reservations.begin(), g.reservations.end(),
                           [&](const Reservation& r) { return r.partition == p; });
    if (it == g.reservations.end()) {
      g.reservations.push_back({p, 0, 0});
      it = g.reservations.end() - 1;
    }
    ++it->delta;
  }
  for (auto& r : g.reservations) {
    r.start = n.parts[r.partition].tracker.Reserve(r.delta);
    uint64_t next = r.start;
    for (uint32_t ki : g.keys) {
      if (PartitionOf(t.accounts[ki]) == r.partition) t.counter[ki] = ++next;
    }
  }
  LogPrepared(e.to, t, g, true);
  g.primary_prepared = true;
  if (t.one_phase && g.backups.empty()) {
    // 1PC without a backup: the primary commits first and stamps the transaction.
    Uuid stamp = n.cm->StampId();
    t.stamp = stamp;
    CommitRole(e.to, e.tx, e.group, true, stamp);
    ReleaseLocks(e.tx, e.group);
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, true, stamp);
    return;
  }
  if (g.backups.empty()) {
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, false, {});
    return;
  }
  g.backup_acks = 0;
  for (uint32_t b : g.backups) Send(MsgType::kDhtPrepareRequest, e.to, b, e.tx, e.group, false, {});
}

void Cluster::OnDhtPrepareRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  Node& n = nodes_[e.to];
  for (const auto& r : g.reservations) {
    if (IsBackupOf(e.to, r.partition)) n.parts[r.partition].tracker.RaiseHwm(r.start + r.delta);
  }
  LogPrepared(e.to, t, g, false);
  if (t.one_phase) {
    // 1PC with a backup: the backup commits first and stamps the transaction; its
    // response carries the commit.
    Uuid stamp = n.cm->StampId();
    CommitRole(e.to, e.tx, e.group, false, stamp);
    Send(MsgType::kDhtPrepareResponse, e.to, g.primary, e.tx, e.group, true, stamp);
    return;
  }
  Send(MsgType::kDhtPrepareResponse, e.to, g.primary, e.tx, e.group, false, {});
}

void Cluster::OnDhtPrepareResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  if (t.one_phase && e.flag) {
    t.stamp = e.stamp;  // copied onto the primary's tx before it commits
    CommitRole(e.to, e.tx, e.group, true, e.stamp);
    ReleaseLocks(e.tx, e.group);
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, true, e.stamp);
    return;
  }
  if (++g.backup_acks == g.backups.size()) {
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, false, {});
  }
}

void Cluster::OnNearPrepareResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.one_phase) {
    TxDone(e.tx, true);
    return;
  }
  if (--t.responses_pending > 0) return;
  // 2PC: the near node decides and is the first committer: it stamps the transaction.
  bool commit = !(c_.rollback_rate > 0 && rng_.Unit() < c_.rollback_rate);
  Uuid stamp = commit ? nodes_[t.near].cm->StampId() : Uuid{};
  t.stamp = stamp;
  t.decided = commit ? 1 : 2;
  if (commit && c_.unknown_rate > 0 && rng_.Unit() < c_.unknown_rate) {
    // A heuristic failure on one participant: it applies the writes but cannot tell
    // the outcome, and logs the transaction UNKNOWN.
    t.unknown_group = static_cast<uint32_t>(rng_.Below(t.groups.size()));
    const Group& g = t.groups[t.unknown_group];
    uint64_t role = rng_.Below(g.backups.size() + 1);
    t.unknown_node = role == 0 ? g.primary : g.backups[role - 1];
  }
  t.responses_pending = static_cast<uint32_t>(t.groups.size());
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    Send(MsgType::kNearFinishRequest, t.near, t.groups[gi].primary, e.tx, gi, commit, stamp);
  }
}

void Cluster::OnNearFinishRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  if (e.flag) {
    CommitRole(e.to, e.tx, e.group, true, e.stamp);
  } else {
    RollbackRole(e.to, e.tx, e.group, true);
  }
  g.primary_finished = true;
  ReleaseLocks(e.tx, e.group);
  for (uint32_t b : g.backups) Send(MsgType::kDhtFinishRequest, e.to, b, e.tx, e.group, e.flag, e.stamp);
  Send(MsgType::kNearFinishResponse, e.to, t.near, e.tx, e.group, e.flag, e.stamp);
}

void Cluster::OnDhtFinishRequest(const Event& e) {
  if (e.flag) {
    CommitRole(e.to, e.tx, e.group, false, e.stamp);
  } else {
    RollbackRole(e.to, e.tx, e.group, false);
  }
}

void Cluster::OnNearFinishResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (--t.responses_pending > 0) return;
  t.rolled_back = !e.flag;
  // Backups may still be applying: the slot stays live until their finish requests are
  // handled, which TxDone arranges by retiring it only when no event refers to it.
  TxDone(e.tx, e.flag);
}

void Cluster::TxDone(uint32_t tx, bool committed) {
  Tx& t = txs_[tx];
  ++outcome_seq_;
  ++finished_txs_;
  if (c_.txs_done != nullptr) c_.txs_done->store(finished_txs_, std::memory_order_relaxed);
  ScheduleCountFaults();
  if (committed) {
    ++summary_.txs_committed;
  } else {
    ++summary_.txs_rolled_back;
  }
  WriteTruthTx(t, committed ? "committed" : t.timed_out ? "lock-timeout" : "rolled-back");
  t.live = false;
  uint32_t near = t.near;
  MaybeFree(tx);
  MaybeStartCut();
  Event next;
  next.kind = EventKind::kNextTx;
  next.to = near;
  next.time = now_;
  Push(next);
}

}  // namespace sim
