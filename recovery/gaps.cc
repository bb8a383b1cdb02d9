#include "recovery/gaps.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "libwal/ignite_record.h"
#include "libwal/wal_reader.h"
#include "recovery/counter_tracker.h"
#include "recovery/partition_file.h"

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

struct GapCopy {
  CounterTracker tracker{1u << 20};
  std::vector<Reservation> reserved;  // still above LWM
  uint64_t meta_lwm = 0;              // Ignite: the highest LWM a partition meta page showed
  // The lowest counter start its records applied (or 0 once an LWM was read): below it,
  // a WAL that lost its first segments knows nothing.
  uint64_t first_start = UINT64_MAX;
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
  explicit GapScan(const GapScanOptions& options) : options_(options) {
    for (const auto& [name, lwms] : options_.snapshot_lwms) Seed(lwms, false);
  }
  void set_first_segment(uint64_t s) { first_segment_ = s; }

  void OnRecord(const wal::Record& r) {
    switch (static_cast<wal::RecordType>(r.type)) {
      case wal::RecordType::kData: {
        wal::DataEntryCursor entries(r.data);
        wal::DataEntry& e = entry_;
        while (entries.Next(&e)) {
          if (e.counter == 0 || (options_.ignite && e.partition == UINT32_MAX)) continue;  // no counter, no partition
          Applied(CopyOf(GroupOf(e.cache_id), e.partition), e.counter - 1, 1);
        }
        break;
      }
      case wal::RecordType::kRollback: {
        const auto& rb = r.decoded.rollback;  // Ignite: of the group
        Applied(CopyOf(rb.cache_id, rb.partition), rb.start, rb.range);
        break;
      }
      case wal::RecordType::kTx: OnTx(r); break;
      case wal::RecordType::kClusterSnapshot:
        if (options_.ignite) {
          const auto it = options_.snapshot_lwms.find(std::string(r.decoded.snapshot.name));
          if (it != options_.snapshot_lwms.end()) Seed(it->second, true);
        }
        break;
      default:
        if (options_.ignite) OnPhysical(r);
        break;
    }
    if (++since_prune_ == 65536) Prune();
  }

  void Finish(NodeGaps* out);

 private:
  // The records of a transaction name few partitions, the same ones again and again: the
  // last copy asked for is asked first.
  GapCopy& CopyOf(uint32_t cache, uint32_t partition) {
    const uint64_t key = PackedCopyKey(cache, partition);
    if (last_ != nullptr && key == last_key_) return *last_;
    last_key_ = key;
    last_ = &copies_[key];  // elements of an unordered_map do not move
    return *last_;
  }

  uint32_t GroupOf(uint32_t cache) const {
    if (options_.group_of.empty()) return cache;
    const auto it = options_.group_of.find(cache);
    return it == options_.group_of.end() ? cache : it->second;
  }

  static void Applied(GapCopy& copy, uint64_t start, uint64_t delta) {
    copy.first_start = std::min(copy.first_start, start);
    (void)copy.tracker.Update(start, delta);
  }

  // A partition meta page's LWM (every counter up to it applied), or a partition destroyed.
  void OnPhysical(const wal::Record& r) {
    const wal::IgnitePartitionCounter c = wal::ReadIgnitePartitionCounter(r.type, r.payload);
    if (c.kind == wal::IgnitePartitionCounter::Kind::kNone) return;
    const auto group = static_cast<uint32_t>(c.group);
    GapCopy& copy = CopyOf(group, c.partition);
    if (c.kind == wal::IgnitePartitionCounter::Kind::kDestroyed) {
      copy = GapCopy{};
      last_ = nullptr;
      return;
    }
    copy.meta_lwm = std::max(copy.meta_lwm, c.lwm);
    copy.tracker.AdvanceLwm(c.lwm);
  }

  // A full snapshot's LWMs; `at_record`: at its CLUSTER_SNAPSHOT record, from which on
  // the WAL shows every counter applied.
  void Seed(const std::vector<PartitionLwm>& lwms, bool at_record) {
    for (const auto& s : lwms) {
      GapCopy& copy = CopyOf(s.group, s.partition);
      copy.meta_lwm = std::max(copy.meta_lwm, s.lwm);
      copy.tracker.AdvanceLwm(s.lwm);
      if (at_record) copy.first_start = 0;
    }
  }

  void OnTx(const wal::Record& r) {
    const wal::TxView& t = r.tx;
    if (t.state == wal::TxState::kCommitted && options_.collect_committed) committed_.push_back(t.xid);
    if (t.state == wal::TxState::kPrepared) {
      ++roles_[t.xid].open;
      // Only a PREPARED record carries counter ranges: it alone is decoded whole.
      if (t.counter_count != 0 && wal::DecodePayload(r.type, r.payload, &any_).ok()) {
        for (const auto& c : any_.tx.counters) {
          GapCopy& copy = CopyOf(c.cache_id, c.partition);
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
    live_.clear();
    for (auto& [id, copy] : copies_) {
      const uint64_t lwm = copy.tracker.lwm();
      auto& v = copy.reserved;
      v.erase(std::remove_if(v.begin(), v.end(), [&](const Reservation& res) { return res.start + res.delta <= lwm; }),
              v.end());
      for (const auto& res : v) live_.push_back(res.xid);
    }
    std::sort(live_.begin(), live_.end());
    for (auto it = roles_.begin(); it != roles_.end();) {
      it = std::binary_search(live_.begin(), live_.end(), it->first) ? std::next(it) : roles_.erase(it);
    }
  }

  CopyGaps GapsOf(uint32_t cache, uint32_t partition, const GapCopy& copy) const;

  const GapScanOptions& options_;
  uint64_t first_segment_ = 0;
  wal::DataEntry entry_;                          // each DATA record's entries in turn (made once: made, it is zeroed)
  std::unordered_map<uint64_t, GapCopy> copies_;  // by PackedCopyKey
  uint64_t last_key_ = 0;
  GapCopy* last_ = nullptr;
  std::vector<wal::TxId> live_;  // Prune's scratch
  // Of the transactions prepared here lately, and of those owning reservations.
  std::unordered_map<wal::TxId, Roles, wal::TxIdHash> roles_;
  std::vector<wal::TxId> committed_;
  uint64_t since_prune_ = 0;
  wal::AnyRecord any_;
};

// The copy's missing counters, one reported gap per owner: the missing ranges split
// where reservations begin.
CopyGaps GapScan::GapsOf(uint32_t cache, uint32_t partition, const GapCopy& copy) const {
  CopyGaps cg;
  cg.cache = cache;
  cg.partition = partition;
  cg.lwm = copy.tracker.lwm();
  cg.hwm = copy.tracker.hwm();
  cg.meta_lwm = copy.meta_lwm;
  cg.group = options_.ignite && std::any_of(options_.group_of.begin(), options_.group_of.end(),
                                            [&](const auto& kv) { return kv.second == cache; });
  // A WAL that lost its first segments: what lies below the first counter its records
  // show (when no meta page showed an LWM) is not known.
  const uint64_t unread = first_segment_ > 0 && copy.first_start != UINT64_MAX ? copy.first_start : 0;
  for (const Gap& g : copy.tracker.Gaps()) {
    if (g.last <= unread) {
      cg.unread_below = unread;
      continue;
    }
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
  std::vector<uint64_t> keys;
  keys.reserve(copies_.size());
  for (const auto& kv : copies_) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  for (uint64_t k : keys) {
    out->copies.push_back(GapsOf(static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k), copies_.at(k)));
  }
  out->committed = std::move(committed_);
}

}  // namespace

wal::Result<NodeGaps> ScanGaps(const std::string& node, const wal::WalLocation& wal_dir,
                               const GapScanOptions& scan_options) {
  NodeGaps out;
  out.node = node;
  out.wal_dir = wal_dir;
  if (scan_options.ignite) {
    auto files = wal::ListSegments(wal_dir);
    if (files.ok() && !files->empty()) out.first_segment = files->front().index;
  }
  wal::ReaderOptions options;
  options.light = true;
  options.release_consumed = true;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, options, [&](const wal::Issue& i) {
    if (i.IsError()) out.errors.push_back(i.ToString());
    if (i.kind == wal::IssueKind::kTornTail) out.torn_tail_text = i.ToString();
  });
  if (!reader.ok()) return reader.status();
  GapScan scan(scan_options);
  scan.set_first_segment(out.first_segment);
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) scan.OnRecord(*r);
  out.torn_tail = (*reader)->torn_tail();
  scan.Finish(&out);
  return out;
}

// The owners of gaps are few, the commits many: one pass over each node's commits finds
// the nodes that committed each owner.
void MarkCommittedElsewhere(std::vector<NodeGaps>& nodes) {
  std::unordered_map<wal::TxId, std::unordered_set<size_t>, wal::TxIdHash> committed_on;
  for (const auto& n : nodes) {
    for (const auto& c : n.copies) {
      for (const auto& g : c.gaps) {
        if (g.xid) committed_on.emplace(*g.xid, std::unordered_set<size_t>{});
      }
    }
  }
  if (committed_on.empty()) return;
  for (size_t j = 0; j < nodes.size(); ++j) {
    for (const wal::TxId& x : nodes[j].committed) {
      auto it = committed_on.find(x);
      if (it != committed_on.end()) it->second.insert(j);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (auto& c : nodes[i].copies) {
      for (auto& g : c.gaps) {
        if (!g.xid) continue;
        const auto& on = committed_on.at(*g.xid);
        g.committed_elsewhere = std::any_of(on.begin(), on.end(), [&](size_t j) { return j != i; });
      }
    }
  }
}

}  // namespace recovery
