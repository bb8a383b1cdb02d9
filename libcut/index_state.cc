// The reading state of a node's cut index, saved between two segment files and loaded to
// resume there (NodeIndexStream checkpoints, `walcut cuts --summary FILE --append`).
// Everything the reading carries from one record to the next is here, with the last cut
// the classifier placed (the participant rule asks it); what is only scratch for one cut
// (the classifier's other tables) is not.
#include <algorithm>

#include "libcut/commit_place.h"
#include "libcut/commit_window.h"
#include "libcut/copy_counters.h"
#include "libcut/hash.h"
#include "libcut/index_builder.h"
#include "libcut/summary_binary.h"
#include "libcut/tx_order.h"
#include "libcut/varint_codec.h"
#include "libwal/format.h"

namespace cut {

void TxOrder::Save(VarintWriter& o) const {
  o.U((on_ ? 1 : 0) | (has_last_write_ ? 2 : 0));
  o.Tx(last_write_);
  o.U(open_.size());
  open_.ForEach([&](const Entry& e) {
    o.Tx(e.xid);
    o.U(e.roles);
  });
}

void TxOrder::Load(VarintReader& in) {
  const uint64_t flags = in.U(3, "order flags");
  on_ = (flags & 1) != 0;
  has_last_write_ = (flags & 2) != 0;
  last_write_ = in.Tx();
  open_.Reset();
  const size_t n = in.Count("open transactions", 4);
  for (size_t i = 0; i < n; ++i) {
    const wal::TxId x = in.Tx();
    open_.Upsert(x).first->roles = static_cast<uint32_t>(in.U(UINT32_MAX, "roles"));
  }
}

void CommitPlacer::Save(VarintWriter& o) const {
  o.U(held_.size() + (has_last_ ? 1 : 0));
  for (const auto& [x, e] : held_) {
    o.Tx(x);
    o.Ptr(e.first);
    o.Ptr(e.last);
  }
  // The slot last: loaded, it is the slot again.
  if (has_last_) {
    o.Tx(last_xid_);
    o.Ptr(last_.first);
    o.Ptr(last_.last);
  }
  o.Ptr(last_cut_record_);
}

void CommitPlacer::Load(VarintReader& in) {
  held_.clear();
  has_last_ = false;
  const size_t n = in.Count("transactions with entries", 5);
  for (size_t i = 0; i < n; ++i) {
    const wal::TxId x = in.Tx();
    Entries e;
    e.first = in.Ptr();
    e.last = in.Ptr();
    if (e.last < e.first) {
      in.Fail("a transaction's last entry before its first");
      return;
    }
    if ((has_last_ && x == last_xid_) || held_.count(x) != 0) {
      in.Fail("a transaction's entries twice");
      return;
    }
    if (has_last_) held_.insert_or_assign(last_xid_, last_);
    has_last_ = true;
    last_xid_ = x;
    last_ = e;
  }
  last_cut_record_ = in.Ptr();
}

namespace {

void PutWrite(VarintWriter& o, const Write& w) {
  o.U(w.cache);
  o.U(w.partition);
  o.Fixed64(w.key_hash);
  o.U(w.counter);
}

Write GetWrite(VarintReader& in) {
  Write w;
  w.cache = static_cast<uint32_t>(in.U(UINT32_MAX, "a cache id"));
  w.partition = static_cast<uint32_t>(in.U(UINT32_MAX, "a partition"));
  w.key_hash = in.Fixed64();
  w.counter = in.U();
  return w;
}

void PutWrites(VarintWriter& o, const std::vector<Write>& v) {
  o.U(v.size());
  for (const auto& w : v) PutWrite(o, w);
}

std::vector<Write> GetWrites(VarintReader& in) {
  std::vector<Write> v(in.Count("writes", 11));
  for (auto& w : v) w = GetWrite(in);
  return v;
}

}  // namespace

void CommitWindow::Save(VarintWriter& o) const {
  o.U(pending_.size());
  for (const auto& [xid, writes] : pending_) {
    o.Tx(xid);
    PutWrites(o, writes);
  }
  o.Tx(last_xid_);
  PutWrites(o, last_writes_);
  o.U(participant_sets_.size());
  for (const auto& set : participant_sets_) {
    o.U(set.size());
    for (uint16_t n : set) o.U(n);
  }
  o.U(writes_base_);
  o.U(writes_.size());
  for (size_t i = 0; i < writes_.size(); ++i) PutWrite(o, writes_[i]);
  auto put = [&](const Commit& c) {
    o.Tx(c.xid);
    o.Ptr(c.ptr());
    o.U(c.participant_mask);
    o.U(c.participant_set == UINT32_MAX ? 0 : uint64_t{c.participant_set} + 1);
    o.U(c.writes_count);
    o.U(c.writes_begin);
  };
  o.U(commits_.size());
  for (size_t i = 0; i < commits_.size(); ++i) put(commits_[i]);
  o.U(placed_.size());
  for (const Commit& c : placed_) put(c);
}

void CommitWindow::Load(VarintReader& in) {
  const size_t pending = in.Count("pending transactions", 4);
  for (size_t i = 0; i < pending; ++i) {
    const wal::TxId x = in.Tx();
    pending_[x] = GetWrites(in);
  }
  last_xid_ = in.Tx();
  last_writes_ = GetWrites(in);
  const size_t sets = in.Count("participant sets");
  for (size_t i = 0; i < sets; ++i) {
    std::vector<uint16_t> set(in.Count("participants"));
    for (auto& n : set) n = static_cast<uint16_t>(in.U(65535, "a participant"));
    participant_ids_.emplace(set, static_cast<uint32_t>(participant_sets_.size()));
    participant_sets_.push_back(std::move(set));
  }
  writes_base_ = in.U();
  const size_t writes = in.Count("window writes", 11);
  for (size_t i = 0; i < writes; ++i) writes_.push_back(GetWrite(in));
  auto get = [&] {
    Commit c;
    c.xid = in.Tx();
    c.set_ptr(in.Ptr());
    c.participant_mask = in.U();
    const uint64_t set = in.U(participant_sets_.size(), "a participant set");
    c.participant_set = set == 0 ? UINT32_MAX : static_cast<uint32_t>(set - 1);
    c.writes_count = static_cast<uint32_t>(in.U(UINT32_MAX, "a commit's writes"));
    c.writes_begin = in.U();
    if (c.writes_begin < writes_base_ || c.writes_begin - writes_base_ > writes_.size() ||
        c.writes_count > writes_.size() - (c.writes_begin - writes_base_)) {
      in.Fail("a commit's writes lie outside the window");
      c.writes_count = 0;
    }
    return c;
  };
  const size_t commits = in.Count("window commits", 8);
  for (size_t i = 0; i < commits; ++i) {
    const Commit c = get();
    // LowerBound and DropBefore rely on the order of place.
    if (!commits_.empty() && c.ptr() < commits_[commits_.size() - 1].ptr()) {
      in.Fail("the window's commits are not in order of place");
      return;
    }
    commits_.push_back(c);
  }
  const size_t placed = in.Count("commits placed aside", 8);
  for (size_t i = 0; i < placed; ++i) placed_.push_back(get());
}

void WindowClassifier::Save(VarintWriter& o) const {
  o.U(last_.valid ? 1 : 0);
  o.Ptr(last_.start);
  o.Ptr(last_.finish);
  for (const IdSet* set : {&before_, &after_}) {  // the last cut's, until the next Classify swaps them
    o.U(set->ids().size());
    for (const auto& x : set->ids()) o.Tx(x);
  }
}

void WindowClassifier::Load(VarintReader& in) {
  last_.valid = in.U(1, "last cut classified") == 1;
  last_.start = in.Ptr();
  last_.finish = in.Ptr();
  for (IdSet* set : {&before_, &after_}) {
    std::vector<wal::TxId> ids(in.Count("last cut's set", 3));
    for (auto& x : ids) x = in.Tx();
    set->Assign(std::move(ids));
  }
}

void CounterFollower::Save(VarintWriter& o) const {
  o.U((known_ ? 1 : 0) | (started_ ? 2 : 0));
  // The settled counters as the copies of one increment, in (cache, partition) order.
  AppliedCounters settled;
  settled.known = true;
  for (const auto& [key, ranges] : settled_) {
    settled.copies.push_back({static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), ranges});
  }
  std::sort(settled.copies.begin(), settled.copies.end(), [](const CopyCounters& a, const CopyCounters& b) {
    return a.cache != b.cache ? a.cache < b.cache : a.partition < b.partition;
  });
  PutAppliedCounters(o, settled);
  o.U(pending_.size());
  for (const Pending& p : pending_) {
    o.U(p.cache);
    o.U(p.partition);
    o.U(p.counter);
    o.Tx(p.xid);
    o.U(p.after_start ? 1 : 0);
  }
}

void CounterFollower::Load(VarintReader& in) {
  const uint64_t flags = in.U(3, "counter flags");
  known_ = (flags & 1) != 0;
  started_ = (flags & 2) != 0;
  settled_.clear();
  AppliedCounters settled = GetAppliedCounters(in);
  for (auto& c : settled.copies) settled_[uint64_t{c.cache} << 32 | c.partition] = std::move(c.counters);
  pending_.resize(in.Count("updates since the last Finish record", 7));
  for (Pending& p : pending_) {
    p.cache = static_cast<uint32_t>(in.U(UINT32_MAX, "a cache id"));
    p.partition = static_cast<uint32_t>(in.U(UINT32_MAX, "a partition"));
    p.counter = in.U();
    p.xid = in.Tx();
    p.after_start = in.U(1, "a flag") == 1;
  }
  if (!in.ok()) Lose();
}

void IndexBuilder::Save(VarintWriter& o) const {
  const NodeIndex& n = *index_;
  o.Str(n.node);
  o.Id(n.node_id);
  o.U(n.order);
  binary_summary::PutSnapshots(o, n.snapshots);
  o.U(n.read_errors.size());
  for (size_t i = 0; i < n.read_errors.size(); ++i) {
    o.Str(n.read_errors[i]);
    o.Ptr(i < n.read_error_at.size() ? n.read_error_at[i] : wal::Pointer{});
  }
  o.Str(n.torn_tail);
  o.Ptr(n.begin);
  o.Ptr(n.end);
  o.U(n.last_ts);
  o.U(n.records);
  o.U(last_segment_);
  o.U(last_start_ts_);
  o.Ptr(last_start_);
  o.U(emitted_.size());
  for (const auto& id : emitted_) o.Id(id);
  o.U(errors_.size());
  for (const auto& [at, text] : errors_) {
    o.Ptr(at);
    o.Str(text);
  }
  o.U(classifier_.finish_sets_watch_commits() ? 1 : 0);
  classifier_.Save(o);
  order_.Save(o);
  window_.Save(o);
  o.U(states_.size());
  for (const auto& s : states_) {
    binary_summary::PutCut(o, s.cut);
    o.U((s.finalized ? 1 : 0) | (s.has_next_start ? 2 : 0));
    o.Ptr(s.next_start);
    o.Ptr(s.window_begin);
    o.U(s.straddling.size());
    for (const auto& [x, at] : s.straddling) {
      o.Tx(x);
      o.Ptr(at);
    }
  }
  placer_.Save(o);
  counters_.Save(o);
}

void IndexBuilder::Load(VarintReader& in) {
  NodeIndex& n = *index_;
  n.node = in.Str(255, "node");
  n.node_id = in.Id();
  n.order = static_cast<uint16_t>(in.U(65535, "node order"));
  n.snapshots = binary_summary::GetSnapshots(in);
  const size_t errors = in.Count("read errors", 3);
  for (size_t i = 0; i < errors; ++i) {
    n.read_errors.push_back(in.Str(1 << 16, "read error"));
    n.read_error_at.push_back(in.Ptr());
  }
  n.torn_tail = in.Str(1 << 16, "torn tail");
  n.begin = in.Ptr();
  n.end = in.Ptr();
  n.last_ts = in.U();
  n.records = in.U();
  last_segment_ = in.U();
  last_start_ts_ = in.U();
  last_start_ = in.Ptr();
  const size_t emitted = in.Count("cuts handed over", 16);
  for (size_t i = 0; i < emitted; ++i) emitted_.insert(in.Id());
  const size_t located = in.Count("located errors", 3);
  for (size_t i = 0; i < located; ++i) {
    const wal::Pointer at = in.Ptr();
    errors_.emplace_back(at, in.Str(1 << 16, "read error"));
  }
  classifier_.set_finish_sets_watch_commits(in.U(1, "Finish sets rule") == 1);
  classifier_.Load(in);
  order_.Load(in);
  window_.Load(in);
  const size_t states = in.Count("open cuts", 4);
  for (size_t i = 0; i < states; ++i) {
    CutState s;
    s.cut = binary_summary::GetCut(in);
    const uint64_t flags = in.U(3, "cut state flags");
    s.finalized = (flags & 1) != 0;
    s.has_next_start = (flags & 2) != 0;
    s.next_start = in.Ptr();
    s.window_begin = in.Ptr();
    const size_t straddling = in.Count("transactions across a Start", 4);
    for (size_t k = 0; k < straddling; ++k) {
      const wal::TxId x = in.Tx();
      s.straddling.emplace_back(x, in.Ptr());
    }
    states_.push_back(std::move(s));
    CutState* back = &states_.back();
    if (by_id_.count(back->cut.id) != 0) {
      in.Fail("a cut open twice");
      return;
    }
    by_id_[back->cut.id] = back;
    if (back->cut.has_start && !back->finalized) open_starts_.emplace(back->cut.start, back);
  }
  placer_.Load(in);
  counters_.Load(in);
}

}  // namespace cut
