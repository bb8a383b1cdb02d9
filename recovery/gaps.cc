#include "recovery/gaps.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "libwal/wal_reader.h"
#include "recovery/counter_tracker.h"

namespace recovery {

const char* GapFateName(GapFate f) {
  switch (f) {
    case GapFate::kNoOwner: return "no-owner";
    case GapFate::kRolledBack: return "rolled-back";
    case GapFate::kPrepared: return "prepared";
    case GapFate::kUnknown: return "unknown";
    case GapFate::kCommitted: return "committed";
  }
  return "?";
}

namespace {

struct Reservation {
  uint64_t start, delta;
  wal::TxId xid;
};

struct Copy {
  CounterTracker tracker{1u << 20};
  std::vector<Reservation> reserved;  // still above LWM
};

// A transaction owning reservations on this node: one PREPARED record per role, each
// role closed by one final record (tx_order.h).
struct Roles {
  uint32_t open = 0;
  wal::TxState last_final = wal::TxState::kPrepared;
};

// The fate of a reservation's counters: a role still open keeps them prepared, whatever
// the transaction's other roles here did; else the outcome of its roles.
GapFate FateOf(const Roles* roles) {
  if (roles == nullptr || roles->open > 0) return GapFate::kPrepared;
  switch (roles->last_final) {
    case wal::TxState::kRolledBack: return GapFate::kRolledBack;
    case wal::TxState::kCommitted: return GapFate::kCommitted;
    case wal::TxState::kUnknown: return GapFate::kUnknown;
    case wal::TxState::kPrepared: break;
  }
  return GapFate::kPrepared;
}

// The node's counters, replayed record by record.
class GapScan {
 public:
  explicit GapScan(bool collect_committed) : collect_committed_(collect_committed) {}

  void OnRecord(const wal::Record& r) {
    switch (static_cast<wal::RecordType>(r.type)) {
      case wal::RecordType::kData: {
        wal::DataEntryCursor entries(r.data);
        wal::DataEntry e;
        while (entries.Next(&e)) {
          if (e.counter > 0) (void)CopyOf(e.cache_id, e.partition).tracker.Update(e.counter - 1, 1);
        }
        break;
      }
      case wal::RecordType::kRollback: {
        const auto& rb = r.decoded.rollback;
        (void)CopyOf(rb.cache_id, rb.partition).tracker.Update(rb.start, rb.range);
        break;
      }
      case wal::RecordType::kTx:
        OnTx(r);
        break;
      default:
        break;
    }
    if (++since_prune_ == 65536) Prune();
  }

  void Finish(NodeGaps* out);

 private:
  Copy& CopyOf(uint32_t cache, uint32_t partition) { return copies_[{cache, partition}]; }

  void OnTx(const wal::Record& r) {
    const wal::TxView& t = r.tx;
    if (t.state == wal::TxState::kCommitted && collect_committed_) committed_.push_back(t.xid);
    if (t.state == wal::TxState::kPrepared) {
      ++roles_[t.xid].open;
      // Only a PREPARED record carries counter ranges: it alone is decoded whole.
      if (t.counter_count != 0 && wal::DecodePayload(r.type, r.payload, &any_).ok()) {
        for (const auto& c : any_.tx.counters) {
          Copy& copy = CopyOf(c.cache_id, c.partition);
          copy.tracker.RaiseHwm(c.start + c.delta);
          copy.reserved.push_back({c.start, c.delta, t.xid});
        }
      }
    } else if (auto it = roles_.find(t.xid); it != roles_.end()) {
      if (it->second.open > 0) --it->second.open;
      it->second.last_final = t.state;
    }
  }

  // Reservations the LWM has passed can own no gap: dropped now and then, so memory
  // follows the open gaps, not the length of the log.
  void Prune() {
    since_prune_ = 0;
    std::set<wal::TxId> live;
    for (auto& [id, copy] : copies_) {
      const uint64_t lwm = copy.tracker.lwm();
      auto& v = copy.reserved;
      v.erase(std::remove_if(v.begin(), v.end(), [&](const Reservation& res) { return res.start + res.delta <= lwm; }),
              v.end());
      for (const auto& res : v) live.insert(res.xid);
    }
    for (auto it = roles_.begin(); it != roles_.end();) {
      it = live.count(it->first) ? std::next(it) : roles_.erase(it);
    }
  }

  CopyGaps GapsOf(uint32_t cache, uint32_t partition, const Copy& copy) const;

  bool collect_committed_;
  std::map<std::pair<uint32_t, uint32_t>, Copy> copies_;
  // Of the transactions prepared here lately, and of those owning reservations.
  std::unordered_map<wal::TxId, Roles, wal::TxIdHash> roles_;
  std::vector<wal::TxId> committed_;
  uint64_t since_prune_ = 0;
  wal::AnyRecord any_;
};

// The copy's missing counters, one reported gap per owner: the missing ranges split
// where reservations begin.
CopyGaps GapScan::GapsOf(uint32_t cache, uint32_t partition, const Copy& copy) const {
  CopyGaps cg;
  cg.cache = cache;
  cg.partition = partition;
  cg.lwm = copy.tracker.lwm();
  cg.hwm = copy.tracker.hwm();
  for (const Gap& g : copy.tracker.Gaps()) {
    uint64_t at = g.first;
    while (at <= g.last) {
      CounterGap gap;
      gap.first = at;
      gap.last = g.last;
      for (const auto& res : copy.reserved) {
        if (res.start + 1 <= at && at <= res.start + res.delta) {
          gap.xid = res.xid;
          gap.last = std::min(g.last, res.start + res.delta);
          auto it = roles_.find(res.xid);
          gap.fate = FateOf(it != roles_.end() ? &it->second : nullptr);
          break;
        }
      }
      if (!gap.xid) {
        // Up to the next reservation that starts inside the gap.
        for (const auto& res : copy.reserved) {
          if (res.start + 1 > at && res.start < gap.last) gap.last = res.start;
        }
      }
      cg.gaps.push_back(gap);
      at = gap.last + 1;
    }
  }
  return cg;
}

void GapScan::Finish(NodeGaps* out) {
  for (const auto& [id, copy] : copies_) out->copies.push_back(GapsOf(id.first, id.second, copy));
  std::sort(committed_.begin(), committed_.end());
  committed_.erase(std::unique(committed_.begin(), committed_.end()), committed_.end());
  out->committed = std::move(committed_);
}

}  // namespace

wal::Result<NodeGaps> ScanGaps(const std::string& node, const wal::WalLocation& wal_dir, bool collect_committed) {
  NodeGaps out;
  out.node = node;
  out.wal_dir = wal_dir;
  wal::ReaderOptions options;
  options.light = true;
  options.release_consumed = true;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, options, [&](const wal::Issue& i) {
    if (i.IsError()) out.errors.push_back(i.ToString());
    if (i.kind == wal::IssueKind::kTornTail) out.torn_tail_text = i.ToString();
  });
  if (!reader.ok()) return reader.status();
  GapScan scan(collect_committed);
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) scan.OnRecord(*r);
  out.torn_tail = (*reader)->torn_tail();
  scan.Finish(&out);
  return out;
}

void MarkCommittedElsewhere(std::vector<NodeGaps>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (auto& c : nodes[i].copies) {
      for (auto& g : c.gaps) {
        if (!g.xid) continue;
        for (size_t j = 0; j < nodes.size() && !g.committed_elsewhere; ++j) {
          const auto& other = nodes[j].committed;
          g.committed_elsewhere = j != i && std::binary_search(other.begin(), other.end(), *g.xid);
        }
      }
    }
  }
}

}  // namespace recovery
