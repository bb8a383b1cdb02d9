#include "libcut/index_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace cut {

void IndexBuilder::OnRecord(const wal::Record& r) {
  if (index_->records++ == 0) index_->begin = r.ptr;
  // Segments missing between two read (reported before reading began): a gap, as in OnIssue.
  if (r.ptr.segment > last_segment_ + 1 && index_->records > 1) {
    order_ = TxOrder();
    counters_.Lose();
  }
  last_segment_ = r.ptr.segment;
  const wal::FormatRules& rules = wal::RulesOf(r.format);
  if (rules.finish_sets_watch_commits) classifier_.set_finish_sets_watch_commits(true);
  const auto& a = r.decoded;
  switch (static_cast<wal::RecordType>(r.type)) {
    case wal::RecordType::kHeader:
      index_->node_id = a.header.node_id;
      index_->order = a.header.node_order;
      break;
    case wal::RecordType::kClusterSnapshot:
      if (rules.copies_by_update_counters) counters_.OnSnapshot();
      index_->snapshots.push_back({std::string(a.snapshot.name), r.ptr, TimeOf(r, a.snapshot.timestamp)});
      Stamp(a.snapshot.timestamp);
      order_.Start();
      break;
    case wal::RecordType::kData: OnData(r); break;
    case wal::RecordType::kTx: OnTx(r); break;
    case wal::RecordType::kCutStart:
      if (rules.commit_placed_at_entries) placer_.OnCutRecord(r.ptr);
      Stamp(a.cut_start.timestamp);
      OnStart(r);
      break;
    case wal::RecordType::kCutFinish:
      if (rules.commit_placed_at_entries) placer_.OnCutRecord(r.ptr);
      Stamp(a.cut_finish.timestamp);
      OnFinish(r);
      break;
    default: break;
  }
}

void IndexBuilder::OnData(const wal::Record& r) {
  Stamp(r.data.timestamp);
  wal::DataEntryCursor entries(r.data);
  wal::DataEntry& e = entry_;
  const wal::FormatRules& rules = wal::RulesOf(r.format);
  while (entries.Next(&e)) {
    // An ATOMIC cache's update or a rebalance's (Ignite): of no transaction, and in order
    // wherever it comes.
    if (e.xid.IsNull() && rules.writes_without_transaction) continue;
    if (std::string why = order_.OnWrite(e.xid); !why.empty()) OutOfOrder(r, why);
    if (e.xid.IsNull()) continue;  // an initial load, not a transaction
    window_.OnWrite(e);
    if (rules.commit_placed_at_entries) placer_.OnWrite(e.xid, r.ptr);
    if (rules.copies_by_update_counters &&
        (e.op == wal::EntryOp::kCreate || e.op == wal::EntryOp::kUpdate || e.op == wal::EntryOp::kDelete)) {
      counters_.OnUpdate(e.cache_id, e.partition, e.counter, e.xid);
    }
  }
}

void IndexBuilder::OnTx(const wal::Record& r) {
  const wal::TxView& t = r.tx;
  Stamp(t.timestamp);
  const wal::FormatRules& rules = wal::RulesOf(r.format);
  const bool unprepared_rollback_ok = rules.rollback_without_prepare && t.state == wal::TxState::kRolledBack;
  std::string why = t.state == wal::TxState::kPrepared
                        ? order_.OnPrepared(t.xid)
                        : order_.OnFinal(t.xid, wal::TxStateName(t.state), unprepared_rollback_ok);
  if (!why.empty()) OutOfOrder(r, why);
  const bool placed = rules.commit_placed_at_entries;
  if (IsCommit(t.state)) {
    if (!stop_pending_.empty()) stop_pending_.erase(t.xid);
    std::optional<CommitPlacer::Entries> entries;
    const wal::Pointer at = placed ? placer_.Place(t.xid, r.ptr, &entries) : r.ptr;
    if (entries) OnIgniteCommit(t.xid, at, *entries);
    window_.OnCommit(t, at);
  } else if (t.state == wal::TxState::kRolledBack) {
    window_.OnRollback(t.xid);
    if (placed) placer_.Forget(t.xid);
  }
  // In flight at the stop cut's Finish record: done here once no role is open.
  if (!stop_open_.empty() && t.state != wal::TxState::kPrepared && !order_.IsOpen(t.xid)) stop_open_.erase(t.xid);
}

// A commit whose entries (since the transaction's last final record here) lie on both
// sides of the Start record of a cut still open: a candidate for torn-transaction
// (CheckTorn).
// Only the last such Start before the last entry is asked: one cut is open at a time in
// a sound WAL, and a crafted one with many open would otherwise cost each commit many.
void IndexBuilder::OnIgniteCommit(const wal::TxId& x, const wal::Pointer& at, const CommitPlacer::Entries& e) {
  auto it = open_starts_.upper_bound(e.last);  // the first Start after the last entry
  if (it == open_starts_.begin()) return;
  --it;
  if (e.first < it->first) it->second->straddling.emplace_back(x, at);
}

void IndexBuilder::OnIssue(const wal::Issue& issue) {
  if (issue.kind == wal::IssueKind::kTornTail) index_->torn_tail = issue.ToString();
  if (!issue.IsError()) return;
  counters_.Lose();
  AddError(wal::Pointer{issue.segment, static_cast<uint32_t>(issue.offset)}, issue.ToString());
  // Past a gap in what was read, transactions are no longer seen whole: their order
  // is checked again from the next full snapshot.
  order_ = TxOrder();
}

void IndexBuilder::Finish(wal::Pointer end) {
  index_->end = end;
  window_.Settle();
  for (auto& s : states_) {
    if (!s.finalized) Finalize(s);
  }
  for (auto& s : states_) ready_->push_back(std::move(s.cut));
  states_.clear();
  by_id_.clear();
  open_starts_.clear();
}

void IndexBuilder::AddError(wal::Pointer at, std::string text) {
  index_->read_errors.push_back(text);
  index_->read_error_at.push_back(at);
  errors_.push_back({at, std::move(text)});
}

// A record out of the order of tx_order.h: an error of the WAL, as damage is.
void IndexBuilder::OutOfOrder(const wal::Record& r, const std::string& why) {
  AddError(r.ptr, fmt::format("\"{}\": records out of order at offset {} (record {}): {}",
                              reader_ != nullptr ? reader_->current_file() : std::string("-"), r.ptr.offset,
                              r.record_index, why));
}

IndexBuilder::CutState* IndexBuilder::Find(const wal::Uuid& id) {
  auto it = by_id_.find(id);
  return it != by_id_.end() ? it->second : nullptr;
}

IndexBuilder::CutState* IndexBuilder::Open(const wal::Uuid& id) {
  states_.emplace_back();
  CutState* s = &states_.back();
  s->cut.id = id;
  by_id_[id] = s;
  s->window_begin = last_start_;
  return s;
}

// A record of a cut already handed over (a WAL written by a broken algorithm, or
// damaged): reported on the cut now open, naming the old one; it opens nothing.
bool IndexBuilder::Stray(const wal::Record& r, const wal::Uuid& id, const char* what) {
  if (emitted_.count(id) == 0 || states_.empty()) return false;
  states_.back().cut.problems.push_back(
      {std::string(what) == "Start" ? Kind::kDuplicateRecord : Kind::kFinishAfterNextStart,
       {},
       r.ptr,
       fmt::format("a {} record of cut {}, written after later cuts' Start records", what, id.ToString())});
  return true;
}

void IndexBuilder::OnStart(const wal::Record& r) {
  const auto& st = r.decoded.cut_start;
  CutState* s = Find(st.cut_id);
  if (s == nullptr && Stray(r, st.cut_id, "Start")) return;
  if (s != nullptr && s->cut.has_start) {
    s->cut.problems.push_back({Kind::kDuplicateRecord, {}, r.ptr, "a second Start record of this cut"});
    return;
  }
  // The previous cut's window ends here.
  if (!states_.empty() && s == nullptr) {
    CutState& prev = states_.back();
    prev.has_next_start = true;
    prev.next_start = r.ptr;
    window_.Settle();
    if (!prev.finalized) Finalize(prev);
  }
  if (s == nullptr) s = Open(st.cut_id);
  if (wal::RulesOf(r.format).copies_by_update_counters) counters_.OnStart();
  s->cut.has_start = true;
  s->cut.start = r.ptr;
  if (!s->finalized) open_starts_.emplace(r.ptr, s);
  s->cut.topology_version = st.topology_version;
  s->cut.start_ts = TimeOf(r, st.timestamp);
  for (auto it = index_->snapshots.rbegin(); it != index_->snapshots.rend(); ++it) {
    if (it->at < r.ptr) {
      s->cut.base = it->name;
      break;
    }
  }
  last_start_ = r.ptr;
  last_start_ts_ = std::max(last_start_ts_, s->cut.start_ts);
  Trim();
  Emit();
}

void IndexBuilder::OnFinish(const wal::Record& r) {
  const auto& f = r.decoded.cut_finish;
  CutState* s = Find(f.cut_id);
  if (s == nullptr && Stray(r, f.cut_id, "Finish")) return;
  if (s == nullptr) {
    s = Open(f.cut_id);
    s->cut.problems.push_back({Kind::kFinishWithoutStart, {}, r.ptr, "Finish record with no Start record before it"});
  }
  if (s->cut.has_finish) {
    s->cut.problems.push_back({Kind::kDuplicateRecord, {}, r.ptr, "a second Finish record of this cut"});
    return;
  }
  s->cut.has_finish = true;
  s->cut.finish = r.ptr;
  s->cut.finish_ts = TimeOf(r, f.timestamp);
  s->cut.before = f.before;
  s->cut.after = f.after;
  if (wal::RulesOf(r.format).copies_by_update_counters) {
    if (s->cut.has_start) {
      s->cut.applied = counters_.OnFinish(f.before, f.after);
    } else {
      counters_.Lose();
    }
  }
  if (s->finalized) {
    s->cut.problems.push_back(
        {Kind::kFinishAfterNextStart, {}, r.ptr, "Finish record written after the next cut's Start record"});
  }
  if (stop_id_ && *stop_id_ == f.cut_id && !stop_armed_) {
    stop_armed_ = true;
    stop_pending_.insert(f.after.begin(), f.after.end());
    window_.Settle();
    for (size_t i = 0; i < window_.size() && !stop_pending_.empty(); ++i) stop_pending_.erase(window_[i].xid);
    order_.ForEachOpen([&](const wal::TxId& x) { stop_open_.insert(x); });
    window_.ForEachHeld([&](const wal::TxId& x) { stop_open_.insert(x); });
  }
  Emit();
}

// A finalized cut is handed over once nothing more can change it: it has its Finish
// record, or the cut after it is finalized too (a Finish written later still is
// reported on a cut of its own).
void IndexBuilder::Emit() {
  while (!states_.empty() && states_.front().finalized &&
         (states_.front().cut.has_finish || (states_.size() > 1 && states_[1].finalized))) {
    emitted_.insert(states_.front().cut.id);
    ready_->push_back(std::move(states_.front().cut));
    by_id_.erase(states_.front().cut.id);
    states_.pop_front();
  }
}

// Commits before the last cut's window are no longer needed by any cut.
void IndexBuilder::Trim() {
  wal::Pointer keep = last_start_;
  for (const auto& s : states_) {
    if (!s.finalized) {
      keep = s.window_begin;
      break;
    }
  }
  window_.DropBefore(keep);
}

// The window of a cut is complete: it is unverifiable when a read error falls inside
// it, and otherwise classified.
void IndexBuilder::Finalize(CutState& s) {
  s.finalized = true;
  if (s.cut.has_start) open_starts_.erase(s.cut.start);
  CutOnNode& c = s.cut;
  const wal::Pointer lo = s.window_begin;
  const wal::Pointer hi = s.has_next_start ? s.next_start : wal::Pointer{UINT64_MAX, UINT32_MAX};
  for (const auto& [at, text] : errors_) {
    if (!(at < lo) && at < hi) {
      c.unverifiable = text;
      break;
    }
  }
  if (!c.has_start || !c.has_finish) {
    s.straddling = {};
    return;
  }
  const wal::Pointer* base_at = nullptr;  // the snapshot record OnStart took c.base from
  for (auto it = index_->snapshots.rbegin(); it != index_->snapshots.rend(); ++it) {
    if (it->at < c.start) {
      base_at = &it->at;
      break;
    }
  }
  classifier_.Classify(c, window_, lo, hi, base_at);
  CheckTorn(s);
}

// Apache Ignite's restore replays a transaction's entries by their place: those before
// the Start record unless the Finish record lists it After, those after only when it
// lists it Before (commit_place.h). A transaction with entries on both sides of the
// Start record, committed after it and listed in neither set, would be restored in part.
// A transaction logs its entries only once past its ACTIVE state, and Ignite lists every
// committed transaction past it at the Start record, so this is damage. (One whose
// commit comes after the next cut's Start is not seen: this cut is finalized there.)
void IndexBuilder::CheckTorn(CutState& s) {
  CutOnNode& c = s.cut;
  if (!s.straddling.empty()) {
    std::vector<wal::TxId> listed = c.before;
    listed.insert(listed.end(), c.after.begin(), c.after.end());
    std::sort(listed.begin(), listed.end());
    // Each transaction once, by its first commit (a second role commits again), in the
    // order of the commits' places.
    std::unordered_set<wal::TxId, wal::TxIdHash> seen;
    std::erase_if(s.straddling, [&](const auto& t) { return !seen.insert(t.first).second; });
    std::stable_sort(s.straddling.begin(), s.straddling.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [x, at] : s.straddling) {
      if (std::binary_search(listed.begin(), listed.end(), x)) continue;
      c.problems.push_back({Kind::kTornTransaction, x, at,
                            fmt::format("entries before the Start record at {} and after it, listed in neither set "
                                        "of the Finish record at {}: Ignite's restore would apply those before the "
                                        "Start record alone",
                                        c.start.ToString(), c.finish.ToString())});
    }
  }
  s.straddling = {};
}

}  // namespace cut
