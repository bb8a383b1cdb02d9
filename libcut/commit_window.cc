#include "libcut/commit_window.h"

#include <algorithm>

#include <xxhash.h>

#include "libcut/hash.h"

namespace cut {

void CommitWindow::OnWrite(const wal::DataEntry& e) {
  if (!last_writes_.empty() && last_xid_ != e.xid) {
    auto& p = pending_[last_xid_];
    p.insert(p.end(), last_writes_.begin(), last_writes_.end());
    last_writes_.clear();
  }
  last_xid_ = e.xid;
  last_writes_.push_back({e.cache_id, e.partition, XXH3_64bits(e.key.data(), e.key.size()), e.counter});
}

void CommitWindow::OnCommit(const wal::TxView& t, const wal::Pointer& at) {
  Commit c;
  c.xid = t.xid;
  c.set_ptr(at);
  // Participants that are not node orders (Apache Ignite's) are not kept: the
  // participant rule is not applied to them.
  bool narrow = true;
  if (t.NamesNodeOrders()) {
    t.ForEachParticipantNode([&](uint16_t order) {
      if (order < 64) {
        c.participant_mask |= uint64_t{1} << order;
      } else {
        narrow = false;
      }
    });
  }
  if (!t.NamesNodeOrders() && t.participant_count > 0) {
    bool every_other = false;
    const uint32_t n = t.ParticipantNodeCount(&every_other);
    c.ignite_participants = every_other ? kAllNodes : static_cast<uint8_t>(n);
  }
  if (!narrow) {
    scratch_.clear();
    t.ForEachParticipantNode([&](uint16_t order) { scratch_.push_back(order); });
    std::sort(scratch_.begin(), scratch_.end());
    scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
    c.participant_set = Intern(scratch_);
  }
  c.writes_begin = writes_base_ + writes_.size();
  if (!pending_.empty()) {
    auto it = pending_.find(t.xid);
    if (it != pending_.end()) {
      writes_.append(it->second.begin(), it->second.end());
      pending_.erase(it);
    }
  }
  if (!last_writes_.empty() && last_xid_ == t.xid) {
    writes_.append(last_writes_.begin(), last_writes_.end());
    last_writes_.clear();
  }
  c.writes_count = static_cast<uint32_t>(writes_base_ + writes_.size() - c.writes_begin);
  // A commit placed before its record (Apache Ignite's, commit_place.h), behind commits
  // already in, waits aside until Settle puts it in its place.
  if (!commits_.empty() && c.ptr() < commits_[commits_.size() - 1].ptr()) {
    placed_.push_back(c);
  } else {
    commits_.push_back(c);
  }
}

void CommitWindow::Settle() {
  if (placed_.empty()) return;
  std::stable_sort(placed_.begin(), placed_.end(), [](const Commit& a, const Commit& b) { return a.ptr() < b.ptr(); });
  // The commits from the first one placed aside onwards, merged with them once.
  const size_t from = LowerBound(0, placed_.front().ptr());
  std::vector<Commit> tail;
  tail.reserve(commits_.size() - from);
  for (size_t i = from; i < commits_.size(); ++i) tail.push_back(commits_[i]);
  commits_.truncate(from);
  size_t a = 0, b = 0;
  while (a < tail.size() || b < placed_.size()) {
    // At an equal place the commit read first (its record earlier) goes first.
    if (b == placed_.size() || (a < tail.size() && !(placed_[b].ptr() < tail[a].ptr()))) {
      commits_.push_back(tail[a++]);
    } else {
      commits_.push_back(placed_[b++]);
    }
  }
  placed_.clear();
}

void CommitWindow::OnRollback(const wal::TxId& xid) {
  if (!pending_.empty()) pending_.erase(xid);
  if (last_xid_ == xid) last_writes_.clear();
}

size_t CommitWindow::LowerBound(size_t from, const wal::Pointer& p) const {
  size_t lo = from, hi = commits_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (commits_[mid].ptr() < p) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

std::vector<uint16_t> CommitWindow::Participants(const Commit& k) const {
  std::vector<uint16_t> out;
  ForEachParticipant(k, [&](uint16_t order) { out.push_back(order); });
  return out;
}

void CommitWindow::DropBefore(const wal::Pointer& keep) {
  Settle();
  size_t drop = 0;
  while (drop < commits_.size() && commits_[drop].ptr() < keep) ++drop;
  commits_.pop_front(drop);
  // The writes still needed begin at the least of the commits' (not always the first's:
  // a commit moved back to its place has its writes later than those after it).
  uint64_t writes_keep = writes_base_ + writes_.size();
  for (size_t i = 0; i < commits_.size(); ++i) writes_keep = std::min(writes_keep, commits_[i].writes_begin);
  for (const Commit& c : placed_) writes_keep = std::min(writes_keep, c.writes_begin);
  writes_.pop_front(static_cast<size_t>(writes_keep - writes_base_));
  writes_base_ = writes_keep;
}

size_t CommitWindow::OrdersHash::operator()(const std::vector<uint16_t>& v) const {
  return static_cast<size_t>(XXH3_64bits(v.data(), v.size() * sizeof(uint16_t)));
}

uint32_t CommitWindow::Intern(const std::vector<uint16_t>& set) {
  auto it = participant_ids_.find(set);
  if (it != participant_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(participant_sets_.size());
  participant_ids_.emplace(set, id);
  participant_sets_.push_back(set);
  return id;
}

}  // namespace cut
