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

}  // namespace

wal::Result<NodeGaps> ScanGaps(const std::string& node, const std::string& wal_dir) {
  NodeGaps out;
  out.node = node;
  out.wal_dir = wal_dir;
  std::map<std::pair<uint32_t, uint32_t>, Copy> copies;
  std::unordered_map<wal::TxId, wal::TxState, wal::TxIdHash> state;  // of transactions owning reservations
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, [&](const wal::Issue& i) {
    if (i.IsError()) out.errors.push_back(i.ToString());
  });
  if (!reader.ok()) return reader.status();
  const wal::Record* r = nullptr;
  uint64_t since_prune = 0;
  while ((*reader)->Next(&r)) {
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kData:
        for (const auto& e : a.data.entries) {
          if (e.counter > 0) (void)copies[{e.cache_id, e.partition}].tracker.Update(e.counter - 1, 1);
        }
        break;
      case wal::RecordType::kRollback:
        (void)copies[{a.rollback.cache_id, a.rollback.partition}].tracker.Update(a.rollback.start, a.rollback.range);
        break;
      case wal::RecordType::kTx:
        if (a.tx.state == wal::TxState::kPrepared) {
          for (const auto& c : a.tx.counters) {
            Copy& copy = copies[{c.cache_id, c.partition}];
            copy.tracker.RaiseHwm(c.start + c.delta);
            copy.reserved.push_back({c.start, c.delta, a.tx.xid});
          }
          state[a.tx.xid] = a.tx.state;
        } else {
          auto it = state.find(a.tx.xid);
          if (it != state.end()) it->second = a.tx.state;
        }
        break;
      default:
        break;
    }
    // Reservations the LWM has passed can own no gap: drop them now and then, so memory
    // follows the open gaps, not the length of the log.
    if (++since_prune == 65536) {
      since_prune = 0;
      std::set<wal::TxId> live;
      for (auto& [id, copy] : copies) {
        uint64_t lwm = copy.tracker.lwm();
        auto& v = copy.reserved;
        v.erase(std::remove_if(v.begin(), v.end(), [&](const Reservation& res) { return res.start + res.delta <= lwm; }),
                v.end());
        for (const auto& res : v) live.insert(res.xid);
      }
      for (auto it = state.begin(); it != state.end();) {
        it = live.count(it->first) ? std::next(it) : state.erase(it);
      }
    }
  }
  out.torn_tail = (*reader)->torn_tail();
  for (auto& [id, copy] : copies) {
    CopyGaps cg;
    cg.cache = id.first;
    cg.partition = id.second;
    cg.lwm = copy.tracker.lwm();
    cg.hwm = copy.tracker.hwm();
    for (const Gap& g : copy.tracker.Gaps()) {
      // One reported gap per owner: split the missing range where reservations begin.
      uint64_t at = g.first;
      while (at <= g.last) {
        CounterGap cgap;
        cgap.first = at;
        cgap.last = g.last;
        for (const auto& res : copy.reserved) {
          if (res.start + 1 <= at && at <= res.start + res.delta) {
            cgap.xid = res.xid;
            cgap.last = std::min(g.last, res.start + res.delta);
            auto st = state.find(res.xid);
            wal::TxState s = st != state.end() ? st->second : wal::TxState::kPrepared;
            cgap.fate = s == wal::TxState::kRolledBack ? GapFate::kRolledBack
                        : s == wal::TxState::kCommitted ? GapFate::kCommitted
                        : s == wal::TxState::kUnknown   ? GapFate::kUnknown
                                                        : GapFate::kPrepared;
            break;
          }
        }
        if (!cgap.xid) {
          // Up to the next reservation that starts inside the gap.
          for (const auto& res : copy.reserved) {
            if (res.start + 1 > at && res.start < cgap.last) cgap.last = res.start;
          }
        }
        cg.gaps.push_back(cgap);
        at = cgap.last + 1;
      }
    }
    out.copies.push_back(std::move(cg));
  }
  return out;
}

wal::Result<std::vector<wal::TxId>> CommittedAmong(const std::string& wal_dir, const std::vector<wal::TxId>& xids) {
  std::set<wal::TxId> want(xids.begin(), xids.end()), found;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, nullptr);
  if (!reader.ok()) return reader.status();
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    if (r->type == static_cast<uint8_t>(wal::RecordType::kTx) && r->decoded.tx.state == wal::TxState::kCommitted &&
        want.count(r->decoded.tx.xid)) {
      found.insert(r->decoded.tx.xid);
    }
  }
  return std::vector<wal::TxId>(found.begin(), found.end());
}

}  // namespace recovery
