#include "libcut/tx_census.h"

#include <algorithm>
#include <numeric>

namespace cut {

std::optional<wal::TxState> TxOnNode::state() const {
  if (!has_record()) return std::nullopt;
  if (unknown != 0) return wal::TxState::kUnknown;
  if (committed + rolled_back < prepared) return wal::TxState::kPrepared;
  return committed != 0 ? wal::TxState::kCommitted : wal::TxState::kRolledBack;
}

namespace {

// Collects a node's transactions from its records, in WAL order.
class Census {
 public:
  explicit Census(const std::optional<wal::TxId>& only) : only_(only) {}

  void OnRecord(const wal::Record& r) {
    if (r.type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      OnTx(r);
    } else if (r.type == static_cast<uint8_t>(wal::RecordType::kData)) {
      wal::DataEntryCursor entries(r.data);
      wal::DataEntry e;
      while (entries.Next(&e)) {
        if (e.xid.IsNull() || (only_ && e.xid != *only_)) continue;
        writes_.push_back({Slot(e.xid), {e.partition, e.counter}});
      }
    }
  }

  // The transactions sorted by id, each with its commits and writes.
  void Finish(NodeTxs* out);

 private:
  struct Index {
    wal::TxId xid;
    uint32_t at = 0;
  };
  struct Traits {
    using Key = wal::TxId;
    static uint64_t Hash(const wal::TxId& x) { return HashTxId(x); }
    static wal::TxId KeyOf(const Index& e) { return e.xid; }
    static void Init(Index* e, const wal::TxId& x) { e->xid = x; }
  };

  // A transaction's records come close together: the last one found is asked first.
  uint32_t Slot(const wal::TxId& x) {
    if (has_last_ && x == last_) return last_at_;
    auto [e, fresh] = index_.Upsert(x);
    if (fresh) {
      e->at = static_cast<uint32_t>(txs_.size());
      txs_.push_back(TxOnNode{});
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
    TxOnNode& tx = txs_[at];
    switch (t.state) {
      case wal::TxState::kPrepared: ++tx.prepared; break;
      case wal::TxState::kCommitted:
        ++tx.committed;
        commits_.push_back({at, r.ptr});
        break;
      case wal::TxState::kRolledBack: ++tx.rolled_back; break;
      case wal::TxState::kUnknown: ++tx.unknown; break;
    }
    if (tx.participants_count == 0 && t.participant_count != 0 && wal::DecodePayload(r.type, r.payload, &any_).ok()) {
      tx.participants_begin = static_cast<uint32_t>(participants_.size());
      tx.participants_count = static_cast<uint16_t>(any_.tx.participants.size());
      for (const auto& p : any_.tx.participants) {
        participants_.push_back(p.primary);
        participants_.push_back(static_cast<uint16_t>(p.backups.size()));
        participants_.insert(participants_.end(), p.backups.begin(), p.backups.end());
      }
    }
  }

  std::optional<wal::TxId> only_;
  FlatTable<Index, Traits> index_;
  bool has_last_ = false;
  wal::TxId last_;
  uint32_t last_at_ = 0;
  std::vector<TxOnNode> txs_;
  std::vector<std::pair<uint32_t, wal::Pointer>> commits_;
  std::vector<std::pair<uint32_t, PartitionCounter>> writes_;
  std::vector<uint16_t> participants_;
  wal::AnyRecord any_;
};

void Census::Finish(NodeTxs* out) {
  std::vector<uint32_t> order(txs_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return txs_[a].xid < txs_[b].xid; });
  std::vector<uint32_t> rank(txs_.size());
  for (uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::stable_sort(commits_.begin(), commits_.end(),
                   [&](const auto& a, const auto& b) { return rank[a.first] < rank[b.first]; });
  std::sort(writes_.begin(), writes_.end(), [&](const auto& a, const auto& b) {
    return rank[a.first] != rank[b.first] ? rank[a.first] < rank[b.first] : a.second < b.second;
  });
  writes_.erase(std::unique(writes_.begin(), writes_.end()), writes_.end());
  out->txs.reserve(txs_.size());
  size_t c = 0, w = 0;
  for (uint32_t k = 0; k < order.size(); ++k) {
    TxOnNode tx = txs_[order[k]];
    tx.commits_begin = static_cast<uint32_t>(out->commits.size());
    for (; c < commits_.size() && rank[commits_[c].first] == k; ++c) out->commits.push_back(commits_[c].second);
    tx.commits_count = static_cast<uint32_t>(out->commits.size()) - tx.commits_begin;
    tx.writes_begin = static_cast<uint32_t>(out->writes.size());
    for (; w < writes_.size() && rank[writes_[w].first] == k; ++w) out->writes.push_back(writes_[w].second);
    tx.writes_count = static_cast<uint32_t>(out->writes.size()) - tx.writes_begin;
    out->txs.push_back(tx);
  }
  out->participants = std::move(participants_);
}

}  // namespace

wal::Result<NodeTxs> ReadNodeTxs(const std::string& node, const wal::WalLocation& wal_dir,
                                 const std::optional<wal::TxId>& only) {
  Census census(only);
  auto index = BuildNodeIndex(node, wal_dir, [&census](const wal::Record& r) { census.OnRecord(r); });
  if (!index.ok()) return index.status();
  NodeTxs out;
  out.index = std::move(index).value();
  census.Finish(&out);
  return out;
}

}  // namespace cut
