#include "libcut/tx_census.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include "libcut/chunked.h"
#include "libcut/commit_place.h"

namespace cut {

std::optional<wal::TxState> TxOnNode::state() const {
  if (!has_record()) return std::nullopt;
  if (unknown != 0) return wal::TxState::kUnknown;
  if (committed + rolled_back < prepared) return wal::TxState::kPrepared;
  return committed != 0 ? wal::TxState::kCommitted : wal::TxState::kRolledBack;
}

// Collects a node's transactions from its records, in WAL order. Only the transactions
// still open on the node (a role prepared and not finished, or writes and no final
// record yet) are in the lookup table, so it stays small; a transaction's entry is
// closed when its last open role finishes, and a record of it after that (a role that
// comes later) opens a second entry. Finish merges them.
class TxCensus::Impl {
 public:
  explicit Impl(const std::optional<wal::TxId>& only) : only_(only) {}

  void OnRecord(const wal::Record& r) {
    if (r.type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      OnTx(r);
    } else if (r.type == static_cast<uint8_t>(wal::RecordType::kData)) {
      const bool placed = wal::RulesOf(r.format).commit_placed_at_entries;
      wal::DataEntryCursor entries(r.data);
      wal::DataEntry& e = entry_;
      while (entries.Next(&e)) {
        if (e.xid.IsNull() || (only_ && e.xid != *only_)) continue;
        writes_.push_back({Slot(e.xid), e.partition, e.counter});
        if (placed) placer_.OnWrite(e.xid, r.ptr);
      }
    } else if (wal::RulesOf(r.format).commit_placed_at_entries && CommitPlacer::IsCutRecord(r.type)) {
      placer_.OnCutRecord(r.ptr);
    }
  }

  // The transactions sorted by id, each with its commits and writes.
  void Finish(NodeTxs* out);

 private:
  // (*rank)[entry] = the place of its transaction among the distinct ids, in id order;
  // returns how many there are.
  uint32_t RankById(std::vector<uint32_t>* rank) const;

  struct Index {
    wal::TxId xid;
    uint32_t at = 0;
  };
  // An entry as it is collected: a TxOnNode without the places of its commits and writes,
  // which Finish gives (40 bytes, not 56).
  struct Entry {
    wal::TxId xid;
    uint32_t prepared = 0, committed = 0, rolled_back = 0, unknown = 0;
    uint32_t participants_begin = 0;
    uint16_t participants_count = 0;
  };
  static_assert(sizeof(Entry) == 40);

  // The entry of `x` (opened when it has none), by index in txs_. A transaction's
  // records come close together: the last one found is asked first.
  uint32_t Slot(const wal::TxId& x) {
    if (has_last_ && x == last_) return last_at_;
    auto [e, fresh] = open_.Upsert(x);
    if (fresh) {
      e->at = static_cast<uint32_t>(txs_.size());
      txs_.push_back(Entry{});
      txs_.back().xid = x;
    }
    has_last_ = true;
    last_ = x;
    last_at_ = e->at;
    return e->at;
  }

  void OnTx(const wal::Record& r) {
    const wal::TxView& t = r.tx;
    if (only_ && t.xid != *only_) return;
    const uint32_t at = Slot(t.xid);
    Entry& tx = txs_[at];
    switch (t.state) {
      case wal::TxState::kPrepared: ++tx.prepared; break;
      case wal::TxState::kCommitted:
      case wal::TxState::kUnknown:  // both commits (side.h, IsCommit)
        ++(t.state == wal::TxState::kCommitted ? tx.committed : tx.unknown);
        commits_.push_back(
            {at, wal::RulesOf(r.format).commit_placed_at_entries ? placer_.Place(t.xid, r.ptr) : r.ptr, t.timestamp});
        break;
      case wal::TxState::kRolledBack:
        ++tx.rolled_back;
        if (wal::RulesOf(r.format).commit_placed_at_entries) placer_.Forget(t.xid);
        break;
    }
    if (tx.participants_count == 0 && t.participant_count != 0 && t.NamesNodeOrders()) {
      tx.participants_begin = static_cast<uint32_t>(participants_.size());
      tx.participants_count = static_cast<uint16_t>(t.participant_count);
      t.ForEachParticipant(
          [&](uint16_t primary, uint32_t backups) {
            participants_.push_back(primary);
            participants_.push_back(static_cast<uint16_t>(backups));
          },
          [&](uint16_t order) { participants_.push_back(order); });
    }
    // Every role it prepared here has finished: the entry closes.
    if (t.state != wal::TxState::kPrepared && tx.committed + tx.rolled_back + tx.unknown >= tx.prepared) {
      open_.Erase(open_.Find(t.xid));
      has_last_ = false;
    }
  }

  std::optional<wal::TxId> only_;
  CommitPlacer placer_;   // Apache Ignite's WALs only
  wal::DataEntry entry_;  // each DATA record's entries in turn (made once: made, it is zeroed)
  FlatTable<Index, ByTxId<Index>> open_;
  bool has_last_ = false;
  wal::TxId last_;
  uint32_t last_at_ = 0;
  // Chunked: millions of entries on a long WAL, grown without copies (chunked.h).
  Chunked<Entry> txs_;
  struct HeldCommit {  // a commit, by its entry in txs_
    uint32_t at;
    wal::Pointer ptr;
    uint64_t ts;
  };
  Chunked<HeldCommit> commits_;
  struct HeldWrite {  // a write, by its entry in txs_ (16 bytes, not a pair's 24)
    uint32_t at;
    uint32_t partition;
    uint64_t counter;
  };
  Chunked<HeldWrite> writes_;
  std::vector<uint16_t> participants_;
};

namespace {

// Sorts [first, last) by insertion when it is nearly sorted already (each element a few
// places from its own): true when done, false once that would move too much (the range
// then left in some order, to be sorted otherwise).
template <typename It>
bool NearlySort(It first, It last) {
  const size_t n = static_cast<size_t>(last - first);
  size_t budget = 16 * n + 64;  // moves allowed
  for (It i = first + (n != 0); i < last; ++i) {
    if (!(*i < *(i - 1))) continue;
    auto v = std::move(*i);
    It j = i;
    do {
      *j = std::move(*(j - 1));
      --j;
      if (--budget == 0) {
        *j = std::move(v);
        return false;
      }
    } while (j != first && v < *(j - 1));
    *j = std::move(v);
  }
  return true;
}

}  // namespace

uint32_t TxCensus::Impl::RankById(std::vector<uint32_t>* rank) const {
  const size_t n = txs_.size();
  // An id is (topology version, node order, order), and a WAL names few pairs of the
  // first two: numbered in their order, each pair's number above the order makes one
  // 64-bit key that sorts as the ids do, when they fit.
  std::vector<std::pair<uint32_t, uint32_t>> groups;
  bool fits = true;
  for (size_t k = 0; k < n; ++k) {
    const Entry& t = txs_[k];
    const std::pair<uint32_t, uint32_t> g{t.xid.topology_version, t.xid.node_order};
    if ((groups.empty() || groups.back() != g) && std::find(groups.begin(), groups.end(), g) == groups.end()) {
      groups.push_back(g);
    }
    if (groups.size() > 64 || t.xid.order >> 56 != 0) {
      fits = false;
      break;
    }
  }
  uint32_t ranks = 0;
  if (fits) {
    std::sort(groups.begin(), groups.end());
    // Placed by group (counting), then each group sorted by order: a near node's orders
    // grow as its transactions begin, so each group comes nearly sorted already.
    std::vector<uint8_t> group_of(n);
    std::vector<uint32_t> group_at(groups.size() + 1, 0);
    for (uint32_t k = 0; k < n; ++k) {
      const wal::TxId& x = txs_[k].xid;
      const auto g = std::lower_bound(groups.begin(), groups.end(), std::pair{x.topology_version, x.node_order});
      group_of[k] = static_cast<uint8_t>(g - groups.begin());
      ++group_at[group_of[k] + 1u];
    }
    std::partial_sum(group_at.begin(), group_at.end(), group_at.begin());
    std::vector<std::pair<uint64_t, uint32_t>> keys(n);
    {
      std::vector<uint32_t> next(group_at.begin(), group_at.end() - 1);
      for (uint32_t k = 0; k < n; ++k) {
        keys[next[group_of[k]]++] = {static_cast<uint64_t>(group_of[k]) << 56 | txs_[k].xid.order, k};
      }
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto first = keys.begin() + group_at[g], last = keys.begin() + group_at[g + 1];
      if (!NearlySort(first, last)) std::sort(first, last);
    }
    for (size_t k = 0; k < n; ++k) {
      if (k > 0 && keys[k].first != keys[k - 1].first) ++ranks;
      (*rank)[keys[k].second] = ranks;
    }
  } else {
    std::vector<std::pair<wal::TxId, uint32_t>> order(n);
    for (uint32_t k = 0; k < n; ++k) order[k] = {txs_[k].xid, k};
    std::sort(order.begin(), order.end());
    for (size_t k = 0; k < n; ++k) {
      if (k > 0 && order[k].first != order[k - 1].first) ++ranks;
      (*rank)[order[k].second] = ranks;
    }
  }
  return n == 0 ? 0 : ranks + 1;
}

// Sorted by id, the entries of one transaction merged: each transaction's commits in WAL
// order and its writes sorted and unique. The commits and writes are placed by counting
// (their transactions' ranks), not sorted whole.
void TxCensus::Impl::Finish(NodeTxs* out) {
  // rank[entry]: its transaction's place in id order.
  std::vector<uint32_t> rank(txs_.size());
  const uint32_t ranks = RankById(&rank);
  // Per rank: where its commits and writes begin.
  std::vector<uint32_t> commit_at(ranks + 1, 0), write_at(ranks + 1, 0);
  commits_.ForEach([&](const HeldCommit& c) { ++commit_at[rank[c.at] + 1]; });
  writes_.ForEach([&](const HeldWrite& w) { ++write_at[rank[w.at] + 1]; });
  std::partial_sum(commit_at.begin(), commit_at.end(), commit_at.begin());
  std::partial_sum(write_at.begin(), write_at.end(), write_at.begin());
  out->commits.resize(commits_.size());
  out->commit_ts.resize(commits_.size());
  {
    std::vector<uint32_t> next(commit_at.begin(), commit_at.end() - 1);
    commits_.ForEach([&](const HeldCommit& c) {
      const uint32_t k = next[rank[c.at]]++;
      out->commits[k] = c.ptr;
      out->commit_ts[k] = c.ts;
    });
  }
  commits_.clear();
  std::vector<PartitionCounter> writes(writes_.size());
  {
    std::vector<uint32_t> next(write_at.begin(), write_at.end() - 1);
    writes_.ForEach([&](const HeldWrite& w) { writes[next[rank[w.at]]++] = PartitionCounter{w.partition, w.counter}; });
  }
  writes_.clear();
  // The entries merged into their transaction's place, read in the order they were
  // opened (the first with participants gives them).
  out->txs.assign(ranks, TxOnNode{});
  for (uint32_t k = 0; k < txs_.size(); ++k) {
    TxOnNode& tx = out->txs[rank[k]];
    const Entry& e = txs_[k];
    if (tx.xid.IsNull()) {  // no transaction has the null id
      tx.xid = e.xid;
      tx.prepared = e.prepared;
      tx.committed = e.committed;
      tx.rolled_back = e.rolled_back;
      tx.unknown = e.unknown;
      tx.participants_begin = e.participants_begin;
      tx.participants_count = e.participants_count;
      continue;
    }
    tx.prepared += e.prepared;
    tx.committed += e.committed;
    tx.rolled_back += e.rolled_back;
    tx.unknown += e.unknown;
    if (tx.participants_count == 0) {
      tx.participants_begin = e.participants_begin;
      tx.participants_count = e.participants_count;
    }
  }
  txs_.clear();
  // Each transaction's writes sorted and made unique where they are, moved down over
  // the duplicates removed before them.
  uint32_t kept = 0;
  for (uint32_t g = 0; g < ranks; ++g) {
    TxOnNode& tx = out->txs[g];
    tx.commits_begin = commit_at[g];
    tx.commits_count = commit_at[g + 1] - commit_at[g];
    const auto first = writes.begin() + write_at[g], last = writes.begin() + write_at[g + 1];
    std::sort(first, last);
    tx.writes_begin = kept;
    for (auto w = first; w != last; ++w) {
      if (kept == tx.writes_begin || writes[kept - 1] != *w) writes[kept++] = *w;
    }
    tx.writes_count = kept - tx.writes_begin;
  }
  writes.resize(kept);
  out->writes = std::move(writes);
  out->participants = std::move(participants_);
}

TxCensus::TxCensus(const std::optional<wal::TxId>& only) : impl_(std::make_unique<Impl>(only)) {}
TxCensus::~TxCensus() = default;
void TxCensus::OnRecord(const wal::Record& r) { impl_->OnRecord(r); }
void TxCensus::Finish(NodeTxs* out) { impl_->Finish(out); }

}  // namespace cut
