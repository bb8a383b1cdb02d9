#include "libcut/window_classifier.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace cut {

void WindowClassifier::Classify(CutOnNode& c, const CommitWindow& w, const wal::Pointer& lo, const wal::Pointer& hi,
                                const wal::Pointer* base_at) {
  std::swap(before_, last_before_);  // the last cut's sets, kept; CheckSets loads this one's
  std::swap(after_, last_after_);
  CheckSets(c);
  Bounds b;
  b.first = w.LowerBound(0, lo);
  b.end = w.LowerBound(b.first, hi);
  b.start = w.LowerBound(b.first, c.start);
  b.finish = std::max(b.start, w.LowerBound(b.start, c.finish));
  if (base_at != nullptr && !(*base_at < lo) && *base_at < c.start) {
    participants_from_ = w.LowerBound(b.first, *base_at);
    not_before_last_ = false;
  } else if (last_.valid && last_.start == lo) {
    participants_from_ = b.first;
    not_before_last_ = true;
  } else {
    participants_from_ = b.start;
    not_before_last_ = false;
  }
  ClassifyCommits(c, w, b);
  CheckKeyOrder(c, w, b);
  last_ = {true, c.start, c.finish};
  FreeLargeTables();
}

// Small tables are kept for the next cut (many short windows then allocate nothing); large
// ones are given back, so that of the many nodes read at once only those classifying hold
// them (eight nodes on two cores, 1 M transactions and 3 cuts: 639 MB peak before, 600 after).
void WindowClassifier::FreeLargeTables() {
  constexpr size_t kKeep = size_t{1} << 20;
  if (seen_.bytes() > kKeep) seen_.Free();
  if (ranged_.bytes() > kKeep) ranged_.Free();
  if (partitions_.bytes() > kKeep) partitions_.Free();
  if (keys_.bytes() > kKeep) keys_.Free();
}

bool WindowClassifier::NewlyBefore(const CommitWindow& w, size_t i, uint64_t hash) const {
  if (i < participants_from_) return false;
  if (!not_before_last_) return true;
  // At or after the last cut's Start: between its records, Before it when it listed it so.
  const Commit& k = w[i];
  return !(k.ptr() < last_.finish && last_before_.Contains(k.xid, hash));
}

void WindowClassifier::CheckSets(CutOnNode& c) {
  if (c.finish < c.start) {
    c.problems.push_back({Kind::kFinishBeforeStart, {}, c.finish, "Finish record precedes the Start record"});
  }
  auto dupes = [&](const std::vector<wal::TxId>& v, const char* set) {
    std::vector<wal::TxId> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i] == sorted[i - 1]) {
        c.problems.push_back(
            {Kind::kDuplicateEntry, sorted[i], c.finish, fmt::format("listed twice in the {} set", set)});
      }
    }
  };
  dupes(c.before, "before");
  dupes(c.after, "after");
  before_.Assign(c.before);
  after_.Assign(c.after);
  for (const auto& x : before_.ids()) {
    if (after_.Contains(x)) {
      c.problems.push_back({Kind::kBothSets, x, c.finish, "listed in both the before and the after set"});
    }
  }
}

Side WindowClassifier::SideAt(const CommitWindow& w, const Bounds& b, size_t i, uint64_t hash) const {
  const Commit& k = w[i];
  const Region where = i < b.start ? Region::kBeforeStart : i < b.finish ? Region::kBetween : Region::kAfterFinish;
  return SideOfCommit(
      where, [&] { return before_.Contains(k.xid, hash); }, [&] { return after_.Contains(k.xid, hash); });
}

// Every commit of the window, in WAL order: its side, the first commit of each
// transaction into c.txs (with participants for those the cluster check's participant
// rule needs), side-split and listed-after-finish on the way, and each write into the
// partition table.
void WindowClassifier::ClassifyCommits(CutOnNode& c, const CommitWindow& w, const Bounds& b) {
  auto id_at = [&](uint32_t i) -> const wal::TxId& { return c.txs[i].xid; };
  seen_.Reset(b.end - b.first);
  ranged_.Reset(before_.ids().size());
  partitions_.Reset();
  c.txs.reserve(b.end - b.first);
  c.after_by_finish = 0;
  constexpr size_t kAhead = 8;  // prefetch distance
  for (size_t i = b.first; i < b.end; ++i) {
    if (i + kAhead < b.end) seen_.Prefetch(w[i + kAhead].hash());
    const Commit& k = w[i];
    const uint64_t hash = k.hash();
    const Side side = SideAt(w, b, i, hash);
    if (i < b.finish && side == Side::kAfter) ++c.after_by_finish;
    if (i >= b.finish) {
      if (before_.Contains(k.xid, hash) || (!watch_commits_ && after_.Contains(k.xid, hash))) {
        c.problems.push_back(
            {Kind::kListedAfterFinish, k.xid, k.ptr(),
             fmt::format("listed in the Finish record at {} but committed after it", c.finish.ToString())});
      }
    } else if (i >= b.start && side == Side::kBefore) {
      ranged_.Insert(k.xid, 0);
    }
    const auto [first, fresh] = seen_.Insert(k.xid, hash, static_cast<uint32_t>(c.txs.size()), id_at);
    if (fresh) {
      const bool newly = side == Side::kBefore && NewlyBefore(w, i, hash);
      if (newly) {
        const auto from = static_cast<uint32_t>(c.participant_nodes.size());
        w.ForEachParticipant(k, [&](uint16_t order) { c.participant_nodes.push_back(order); });
        const auto count = static_cast<uint32_t>(c.participant_nodes.size() - from);
        if (count > 0) c.participants.push_back({static_cast<uint32_t>(c.txs.size()), from, count});
      }
      c.txs.push_back(TxSide{k.xid, k.ptr_segment, k.ptr_offset, side, newly ? k.ignite_participants : uint8_t{0}});
    } else if (c.txs[first].side != side) {
      c.problems.push_back({Kind::kSideSplit, k.xid, k.ptr(),
                            fmt::format("committed on both sides of the cut on this node (at {} and {})",
                                        c.txs[first].commit().ToString(), k.ptr().ToString())});
    }
    w.ForEachWrite(
        k, [&](const Write& wr) { partitions_.Add(wr.cache, wr.partition, wr.counter, side == Side::kBefore); });
  }
  CheckListed(c);
}

// Every transaction of the Finish record's sets is committed in the window, and one
// listed Before between the Start and the Finish record.
void WindowClassifier::CheckListed(CutOnNode& c) {
  auto id_at = [&](uint32_t i) -> const wal::TxId& { return c.txs[i].xid; };
  for (const auto& x : before_.ids()) {
    const uint32_t at_index = seen_.Find(x, id_at);
    if (at_index == UINT32_MAX) {
      c.problems.push_back(
          {Kind::kListedNotCommitted, x, c.finish, "in the before set but not committed on this node"});
    } else if (ranged_.Find(x) == nullptr) {
      // (A transaction with two roles here may commit one of them before Start.)
      const wal::Pointer at = c.txs[at_index].commit();
      if (watch_commits_ && at < c.start) continue;  // grabbed while committing (see the header)
      c.problems.push_back({Kind::kBeforeOutsideRange, x, at,
                            fmt::format("in the before set but committed at {}, not between Start {} and Finish {}",
                                        at.ToString(), c.start.ToString(), c.finish.ToString())});
    }
  }
  for (const auto& x : after_.ids()) {
    if (seen_.Find(x, id_at) == UINT32_MAX) {
      c.problems.push_back({Kind::kListedNotCommitted, x, c.finish, "in the after set but not committed on this node"});
    }
  }
}

// Per key, the highest Before counter stays below the lowest After counter. The
// partitions were checked first; only the keys of a partition that fails that go to a
// table (in a correct cut, those of the few transactions in flight at Start).
void WindowClassifier::CheckKeyOrder(CutOnNode& c, const CommitWindow& w, const Bounds& b) {
  if (!partitions_.AnyConflict()) return;
  keys_.Reset(64);
  for (size_t i = b.first; i < b.end; ++i) {
    const bool before = SideAt(w, b, i, w[i].hash()) == Side::kBefore;
    const auto commit = static_cast<uint32_t>(i - b.first);
    w.ForEachWrite(w[i], [&](const Write& wr) {
      if (partitions_.MayConflict(wr.cache, wr.partition)) {
        keys_.Add(wr.key_hash, wr.partition, wr.cache, wr.counter, before, commit);
      }
    });
  }
  // Slot order is not an order users can rely on: by the place of the Before commit,
  // then by key (cache, partition, hash), so the report is the same however the table
  // was sized.
  std::vector<KeyTable::Entry> broken;
  keys_.ForEach([&](const KeyTable::Entry& e) {
    if (e.before_commit != UINT32_MAX && e.min_after != UINT64_MAX && e.max_before >= e.min_after) broken.push_back(e);
  });
  std::sort(broken.begin(), broken.end(), [](const KeyTable::Entry& x, const KeyTable::Entry& y) {
    return std::tie(x.before_commit, x.cache, x.partition, x.hash) <
           std::tie(y.before_commit, y.cache, y.partition, y.hash);
  });
  for (const KeyTable::Entry& e : broken) {
    const Commit& k = w[b.first + e.before_commit];
    c.problems.push_back({Kind::kKeyOrder, k.xid, k.ptr(),
                          fmt::format("cache {} partition {} key xxh3:{:016x}: a Before write has counter {}, an "
                                      "After write counter {}",
                                      e.cache, e.partition, e.hash, e.max_before, e.min_after)});
  }
}

}  // namespace cut
