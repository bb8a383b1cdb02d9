// Pessimistic locks taken primary by primary, their timeouts and release.
#include "sim/cluster.h"

#include <algorithm>

namespace sim {

void Cluster::OnLockRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  if (!t.live) return;  // timed out before the request arrived: nothing to lock
  Group& g = t.groups[e.group];
  g.waiting_locks = 0;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    auto& q = lock_queue_[a];
    if (q.size() - lock_head_[a] > 0) ++g.waiting_locks;
    q.push_back({e.tx, t.gen, e.group});
  }
  GrantIfReady(e.tx, e.group);
}

void Cluster::GrantIfReady(uint32_t tx, uint32_t group) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  if (g.waiting_locks != 0 || g.locked || t.rolled_back) return;
  g.locked = true;
  Send(MsgType::kLockResponse, g.primary, t.near, tx, group, false, {});
}

void Cluster::ReleaseLocks(uint32_t tx, uint32_t group) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  if (!g.lock_requested) return;
  g.lock_requested = false;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    auto& q = lock_queue_[a];
    size_t& head = lock_head_[a];
    auto mine = [&](const LockWaiter& w) { return w.tx == tx && w.gen == t.gen && w.group == group; };
    auto it = std::find_if(q.begin() + static_cast<ptrdiff_t>(head), q.end(), mine);
    if (it == q.end()) continue;
    bool was_head = it == q.begin() + static_cast<ptrdiff_t>(head);
    if (was_head) {
      ++head;
    } else {
      q.erase(it);
    }
    if (head == q.size()) {
      q.clear();
      head = 0;
    } else if (was_head) {
      const LockWaiter next = q[head];
      --txs_[next.tx].groups[next.group].waiting_locks;
      GrantIfReady(next.tx, next.group);
    }
    if (head > 64 && head * 2 > q.size()) {
      q.erase(q.begin(), q.begin() + static_cast<ptrdiff_t>(head));
      head = 0;
    }
  }
}

void Cluster::OnLockRelease(const Event& e) { ReleaseLocks(e.tx, e.group); }

void Cluster::OnLockResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.rolled_back || !t.live) return;  // timed out meanwhile: the release is on its way
  // The primary read the values under the lock.
  Group& g = t.groups[e.group];
  const Node& primary = nodes_[g.primary];
  for (uint32_t ki : g.keys) {
    t.new_balance[ki] = primary.balance[t.accounts[ki]];
    t.existed[ki] = t.exists[ki] = primary.open[t.accounts[ki]];
  }
  if (--t.locks_pending > 0) {
    Group& next = t.groups[e.group + 1];
    next.lock_requested = true;
    Send(MsgType::kLockRequest, t.near, next.primary, e.tx, e.group + 1, false, {});
    return;
  }
  if (t.accounts.size() >= 2) Transfer(t);  // a one-key scenario transaction rewrites its value
  Prepare(e.tx);
}

void Cluster::OnLockTimeout(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.gen != e.gen || !t.live || t.preparing || t.recovered || !nodes_[t.near].alive) return;
  // Not every lock came in time: release what was asked for and give up (no WAL: the
  // transaction never prepared anywhere).
  t.rolled_back = true;
  t.timed_out = true;
  ++summary_.lock_timeouts;
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    if (t.groups[gi].lock_requested) Send(MsgType::kLockRelease, t.near, t.groups[gi].primary, e.tx, gi, false, {});
  }
  TxDone(e.tx, false);
}

}  // namespace sim
