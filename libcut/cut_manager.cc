#include "libcut/cut_manager.h"

#include <algorithm>

#include <fmt/format.h>

namespace cut {

const char* InjectedBugName(InjectedBug bug) {
  switch (bug) {
    case InjectedBug::kNone: return "none";
    case InjectedBug::kNoTxCutId: return "no-tx-cut-id";
    case InjectedBug::kNoWrap: return "no-wrap";
    case InjectedBug::kEarlyFinish: return "early-finish";
    case InjectedBug::kIgnoreRecovery: return "ignore-recovery";
  }
  return "unknown";
}

bool ParseInjectedBug(const std::string& name, InjectedBug* out) {
  for (InjectedBug b : {InjectedBug::kNone, InjectedBug::kNoTxCutId, InjectedBug::kNoWrap, InjectedBug::kEarlyFinish,
                        InjectedBug::kIgnoreRecovery}) {
    if (name == InjectedBugName(b)) {
      *out = b;
      return true;
    }
  }
  return false;
}

CutManager::CutManager(CutListener* listener, bool baseline, uint32_t joined_topology_version, InjectedBug bug)
    : listener_(listener), baseline_(baseline), joined_topology_version_(joined_topology_version), bug_(bug) {}

bool CutManager::OnCutId(const wal::Uuid& cut_id, uint32_t topology_version) {
  if (cut_id.IsNil() || done_.count(cut_id) != 0) return false;  // never twice
  if (running_ && cut_id == cut_id_) return false;
  // A node that joined after the cut's topology version takes no part in it: its
  // transactions are After by the topology rule.
  if (joined_topology_version_ > topology_version) return false;
  if (running_) {
    // A newer cut reached this node (on a wrapped message) before the discovery event
    // that ends the previous one: the initiator starts a cut only after the previous
    // one ended, so the previous one is over. Keeping it would leave this node deaf to
    // the new id, and transactions stamped with it would be counted Before here.
    if (baseline_ && !finished_ && !failed_) {
      Fail(fmt::format("superseded by cut {}", cut_id.ToString()));
    }
    done_.insert(cut_id_);
  }
  running_ = true;
  finished_ = false;
  failed_ = false;
  cut_id_ = cut_id;
  topology_version_ = topology_version;
  before_.clear();
  after_.clear();
  watched_.clear();
  if (!baseline_) return true;
  ++stats_.cuts_started;
  start_pending_ = true;
  // Transactions prepared or committing now are watched; ACTIVE ones (not prepared
  // here) will commit after Start and are After without being listed.
  for (const auto& [xid, roles] : in_flight_) watched_.emplace(xid, Watch{});
  stats_.watched += watched_.size();
  return true;
}

void CutManager::WriteStartRecord(uint64_t now) {
  if (!start_pending_) return;
  start_pending_ = false;
  if (failed_) return;
  listener_->WriteStart(wal::CutStartRecord{cut_id_, topology_version_, now});
  MaybeFinish(now);
}

wal::Uuid CutManager::WrapId() const {
  if (!running_ || bug_ == InjectedBug::kNoWrap) return {};
  return cut_id_;
}

wal::Uuid CutManager::StampId() const {
  if (!running_ || bug_ == InjectedBug::kNoTxCutId) return {};
  return cut_id_;
}

void CutManager::OnTxPrepared(const wal::TxId& xid) { ++in_flight_[xid]; }

void CutManager::OnTxFinished(const TxFinish& f, uint64_t now) {
  auto it = in_flight_.find(f.xid);
  uint32_t left = 0;
  if (it != in_flight_.end()) {
    left = --it->second;
    if (left == 0) in_flight_.erase(it);
  }
  if (!baseline_ || !running_ || finished_ || failed_) return;
  auto w = watched_.find(f.xid);
  if (w == watched_.end()) {
    // The commit callback: while the start step runs, whatever finishes is watched,
    // even if it was not prepared at the atomic start.
    if (!start_pending_) return;
    w = watched_.emplace(f.xid, Watch{}).first;
    ++stats_.watched;
  }
  Watch& watch = w->second;
  watch.any_recovery |= f.recovery_finish;
  watch.any_unknown |= f.outcome == TxOutcome::kUnknown;
  watch.any_committed |= f.outcome == TxOutcome::kCommitted;
  if (f.outcome == TxOutcome::kCommitted) (start_pending_ ? watch.in_start_step : watch.after_start) = true;
  if (left != 0) return;  // another role of this transaction is still in flight here
  TxFinish combined = f;
  combined.recovery_finish = watch.any_recovery;
  if (watch.any_unknown)
    combined.outcome = TxOutcome::kUnknown;
  else if (watch.any_committed)
    combined.outcome = TxOutcome::kCommitted;
  if (watch.in_start_step) ++stats_.committed_in_start_step;
  // A Before transaction whose commits all precede the Start record is Before without
  // being listed; only one committed after Start needs the before set.
  const bool list_before = watch.after_start;
  watched_.erase(w);
  Classify(combined, list_before);
  MaybeFinish(now);
}

void CutManager::Classify(const TxFinish& f, bool list_before) {
  switch (f.outcome) {
    case TxOutcome::kRolledBack: ++stats_.rolled_back; return;
    case TxOutcome::kUnknown: Fail(fmt::format("transaction {} ended in the UNKNOWN state", f.xid.ToString())); return;
    case TxOutcome::kCommitted: break;
  }
  if (f.recovery_finish && bug_ != InjectedBug::kIgnoreRecovery) {
    Fail(fmt::format("transaction {} was finished by transaction recovery", f.xid.ToString()));
    return;
  }
  if (f.topology_version > topology_version_) {
    ++stats_.after_by_topology;
    after_.push_back(f.xid);
  } else if (!f.tx_cut_id.IsNil() && f.tx_cut_id == cut_id_) {
    ++stats_.after_by_stamp;
    after_.push_back(f.xid);
  } else {
    ++stats_.before;
    if (list_before) before_.push_back(f.xid);
  }
}

void CutManager::MaybeFinish(uint64_t now) {
  if (!running_ || finished_ || failed_ || start_pending_) return;
  if (!watched_.empty() && bug_ != InjectedBug::kEarlyFinish) return;
  finished_ = true;
  ++stats_.cuts_finished;
  wal::CutFinishRecord r;
  r.cut_id = cut_id_;
  r.timestamp = now;
  r.before = before_;
  r.after = after_;
  std::sort(r.before.begin(), r.before.end());
  std::sort(r.after.begin(), r.after.end());
  listener_->WriteFinish(r);
}

void CutManager::Fail(const std::string& reason) {
  if (!running_ || finished_ || failed_ || !baseline_) return;
  failed_ = true;
  ++stats_.cuts_failed;
  watched_.clear();
  listener_->CutFailed(cut_id_, reason);
}

void CutManager::OnCutDone(const wal::Uuid& cut_id) {
  if (!running_ || cut_id != cut_id_) {
    done_.insert(cut_id);
    return;
  }
  // A baseline node that never finished (the cut failed elsewhere) fails here too, so
  // no Finish record is written late.
  if (baseline_ && !finished_ && !failed_) {
    failed_ = true;
    ++stats_.cuts_failed;
  }
  done_.insert(cut_id);
  running_ = false;
  start_pending_ = false;
  watched_.clear();
}

}  // namespace cut
