// After a server leaves: transaction recovery and the partition map exchange.
#include "sim/cluster.h"

#include <algorithm>

#include <fmt/format.h>

namespace sim {

// Every live node has seen the leave: transaction recovery, then (for a server) the
// partition map exchange: backups take over, counters are finalized, the running cut is
// over, and a full snapshot follows once the cluster is idle.
void Cluster::Exchange() {
  // Still blocked while recovery runs: a transaction it finishes must not start a cut.
  const uint32_t gone = exchange_node_;
  const Node& g = nodes_[gone];
  RecoverTransactions(gone);
  if (g.server) {
    FinalizeCountersOf(gone);
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      auto& a = assignment_[p];
      a.erase(std::remove(a.begin(), a.end(), gone), a.end());
      if (a.empty()) {
        Check(Status::InvalidArgument(
            fmt::format("the crash of {} leaves partition {} without a copy: use more --backups", g.name, p)));
      }
    }
    for (uint32_t s : servers_) {
      if (nodes_[s].alive) {
        coordinator_ = s;
        break;
      }
    }
    if (!cuts_.empty() && !cuts_.back().done) {
      CutRun& r = cuts_.back();
      r.failed = r.done = true;
      if (r.reason.empty()) r.reason = fmt::format("baseline node {} left the cluster", g.name);
      Broadcast({DiscoveryEvent::kCutDone, r.id, r.topver});
    }
    quiescing_ = true;
  }
  RecordTopology(fmt::format("{} left", g.name));
  exchange_pending_ = false;
  if (!quiescing_) Resume();
}

// Transactions node `gone` took part in (as near node, primary or backup): one still
// taking locks is abandoned; a prepared one is committed if the near node survives and
// decided to commit or a surviving participant committed it, else rolled back. Each
// surviving role still open finishes with RECOVERY_FINISH.
void Cluster::RecoverTransactions(uint32_t gone) {
  for (uint32_t tx = 0; tx < txs_.size(); ++tx) {
    Tx& t = txs_[tx];
    if (t.freed || t.recovered) continue;
    bool involved = t.near == gone;
    for (const auto& g : t.groups) {
      involved =
          involved || g.primary == gone || std::find(g.backups.begin(), g.backups.end(), gone) != g.backups.end();
    }
    if (!involved) continue;
    t.recovered = true;
    if (!t.preparing) {
      for (uint32_t gi = 0; gi < t.groups.size(); ++gi) ReleaseLocks(tx, gi);
      if (t.live) {
        t.rolled_back = true;
        TxDone(tx, false);
      }
      MaybeFree(tx);
      continue;
    }
    const bool near_alive = nodes_[t.near].alive;
    bool commit = near_alive && t.decided == 1;
    for (const auto& g : t.groups) {
      commit = commit || (nodes_[g.primary].alive && g.primary_state == kRoleCommitted);
      for (size_t b = 0; b < g.backups.size(); ++b) {
        commit = commit || (nodes_[g.backups[b]].alive && g.backup_state[b] == kRoleCommitted);
      }
    }
    if (near_alive && t.decided == 2) commit = false;
    bool wrote = false;
    for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
      const std::vector<uint32_t> backups = t.groups[gi].backups;
      auto finish = [&](uint32_t n, bool primary) {
        if (!nodes_[n].alive) return;
        const uint8_t st = StateOf(t.groups[gi], n, primary);
        if (st == kRolePrepared) {
          if (commit) {
            CommitRole(n, tx, gi, primary, {}, true);
          } else {
            RollbackRole(n, tx, gi, primary, true);
          }
          wrote = true;
        } else if (st == kRoleNone && !commit) {
          CloseReserved(n, tx, gi, primary);  // a backup the prepare never reached
        }
      };
      finish(t.groups[gi].primary, true);
      for (uint32_t b : backups) finish(b, false);
      ReleaseLocks(tx, gi);
    }
    if (wrote) ++summary_.txs_recovered;
    if (t.live) {
      t.rolled_back = !commit;
      TxDone(tx, commit);
    }
    MaybeFree(tx);
  }
}

// A rolled-back transaction's reserved counters on a copy that never prepared it.
void Cluster::CloseReserved(uint32_t n, uint32_t tx, uint32_t group, bool primary) {
  const Group& g = txs_[tx].groups[group];
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) != n : !IsBackupOf(n, res.partition)) continue;
    Log(n, wal::RollbackRecord{kCacheId, res.partition, res.start, res.delta});
    Check(nodes_[n].parts[res.partition].tracker.Update(res.start, res.delta));
  }
}

// The copies of the partitions `gone` held agree on the highest counter reserved among
// them, and each closes its gaps below it with RollbackRecords.
void Cluster::FinalizeCountersOf(uint32_t gone) {
  for (uint32_t p = 0; p < c_.partitions; ++p) {
    const auto& a = assignment_[p];
    if (std::find(a.begin(), a.end(), gone) == a.end()) continue;
    uint64_t hwm = 0;
    for (uint32_t c : a) {
      if (c != gone) hwm = std::max(hwm, nodes_[c].parts[p].tracker.hwm());
    }
    for (uint32_t c : a) {
      if (c == gone) continue;
      auto& tracker = nodes_[c].parts[p].tracker;
      tracker.RaiseHwm(hwm);
      for (const auto& gap : tracker.Finalize()) {
        Log(c, wal::RollbackRecord{kCacheId, p, gap.first - 1, gap.size()});
        ++summary_.gaps_closed;
      }
    }
  }
}

}  // namespace sim
