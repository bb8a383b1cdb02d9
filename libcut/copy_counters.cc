#include "libcut/copy_counters.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>

#include "libcut/copy_check.h"

namespace cut {

void AddCounter(CounterRanges& r, uint64_t c) {
  if (r.empty() || c > r.back().second + 1) {  // the common case: counters come in order
    r.emplace_back(c, c);
    return;
  }
  if (c == r.back().second + 1) {
    r.back().second = c;
    return;
  }
  // The first range that ends at c - 1 or later.
  auto it = std::lower_bound(r.begin(), r.end(), c, [](const auto& x, uint64_t v) { return x.second + 1 < v; });
  if (it != r.end() && it->first <= c && c <= it->second) return;  // already there
  if (it != r.end() && it->second + 1 == c) {
    it->second = c;
    auto next = it + 1;
    if (next != r.end() && next->first == c + 1) {
      it->second = next->second;
      r.erase(next);
    }
    return;
  }
  if (it != r.end() && it->first == c + 1) {
    it->first = c;
    return;
  }
  r.insert(it, {c, c});
}

void CounterFollower::OnSnapshot() {
  known_ = true;
  started_ = false;
  settled_.clear();
  pending_.clear();
}

void CounterFollower::Lose() {
  known_ = false;
  started_ = false;
  settled_.clear();
  pending_.clear();
}

void CounterFollower::OnUpdate(uint32_t cache, uint32_t partition, uint64_t counter, const wal::TxId& xid) {
  if (!known_ || counter == 0 || xid.IsNull()) return;
  pending_.push_back({cache, partition, counter, xid, started_});
}

void CounterFollower::OnStart() {
  if (!known_) return;
  if (started_) {  // two Starts without a Finish between: not a shape Ignite writes
    Lose();
    return;
  }
  started_ = true;
}

AppliedCounters CounterFollower::OnFinish(const std::vector<wal::TxId>& included,
                                          const std::vector<wal::TxId>& excluded) {
  AppliedCounters out;
  if (!known_) return out;
  if (!started_) {  // a Finish without its Start: not a shape Ignite writes
    Lose();
    return out;
  }
  const std::unordered_set<wal::TxId, wal::TxIdHash> in(included.begin(), included.end());
  const std::unordered_set<wal::TxId, wal::TxIdHash> ex(excluded.begin(), excluded.end());
  std::unordered_map<uint64_t, CounterRanges> applied = settled_;
  for (const Pending& p : pending_) {
    const bool applies = p.after_start ? in.count(p.xid) != 0 : ex.count(p.xid) == 0;
    const uint64_t key = uint64_t{p.cache} << 32 | p.partition;
    if (applies) {
      AddCounter(applied[key], p.counter);
      out.window.push_back({p.cache, p.partition, p.counter, p.xid});
    }
    AddCounter(settled_[key], p.counter);  // the next increment applies everything up to here
  }
  pending_.clear();
  started_ = false;
  out.known = true;
  out.copies.reserve(applied.size());
  for (auto& [key, ranges] : applied) {
    out.copies.push_back({static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), std::move(ranges)});
  }
  std::sort(out.copies.begin(), out.copies.end(), [](const CopyCounters& a, const CopyCounters& b) {
    return std::tie(a.cache, a.partition) < std::tie(b.cache, b.partition);
  });
  return out;
}

}  // namespace cut

// ---------------------------------------------------------------------------------------

namespace cut {
namespace {

// The first counter of `all` not in `have` (both sorted, `have` within `all`), and how many.
bool FirstMissing(const CounterRanges& all, const CounterRanges& have, uint64_t* first, uint64_t* count) {
  *count = 0;
  size_t j = 0;
  bool found = false;
  for (const auto& [lo, hi] : all) {
    uint64_t c = lo;
    while (c <= hi) {
      while (j < have.size() && have[j].second < c) ++j;
      if (j < have.size() && have[j].first <= c) {
        if (have[j].second >= hi) break;
        c = have[j].second + 1;
        continue;
      }
      const uint64_t end = j < have.size() ? std::min(hi, have[j].first - 1) : hi;
      if (!found) *first = c;
      found = true;
      *count += end - c + 1;
      if (end == UINT64_MAX) break;
      c = end + 1;
    }
  }
  return found;
}

CounterRanges Union(const std::vector<const CounterRanges*>& of) {
  CounterRanges out;
  for (const auto* r : of) {
    for (const auto& x : *r) out.push_back(x);
  }
  std::sort(out.begin(), out.end());
  CounterRanges merged;
  for (const auto& x : out) {
    if (!merged.empty() && x.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, x.second);
    } else {
      merged.push_back(x);
    }
  }
  return merged;
}

}  // namespace

void CheckCopies(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on,
                 CutReport& report) {
  struct Holder {
    size_t node;
    const CounterRanges* counters;
  };
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Holder>> copies;
  for (size_t i = 0; i < on.size(); ++i) {
    if (on[i] == nullptr || !on[i]->applied.known) continue;
    for (const auto& c : on[i]->applied.copies) copies[{c.cache, c.partition}].push_back({i, &c.counters});
  }
  std::unordered_set<wal::TxId, wal::TxIdHash> mismatched;
  for (const auto& v : report.violations) {
    if (v.kind == Kind::kSideMismatch && v.xid) mismatched.insert(*v.xid);
  }
  // The transaction that wrote `counter` of the copy, from any node's window (looked for
  // only when copies differ).
  auto writer = [&](uint32_t cache, uint32_t partition, uint64_t counter) -> std::optional<wal::TxId> {
    for (const auto* c : on) {
      if (c == nullptr) continue;
      for (const auto& u : c->applied.window) {
        if (u.cache == cache && u.partition == partition && u.counter == counter) return u.xid;
      }
    }
    return std::nullopt;
  };
  for (const auto& [key, holders] : copies) {
    if (holders.size() < 2) continue;
    bool alike = true;
    for (const auto& h : holders) alike = alike && *h.counters == *holders[0].counters;
    if (alike) continue;
    std::vector<const CounterRanges*> all;
    for (const auto& h : holders) all.push_back(h.counters);
    const CounterRanges every = Union(all);
    for (const auto& h : holders) {
      uint64_t first = 0, count = 0;
      if (!FirstMissing(every, *h.counters, &first, &count)) continue;
      const Holder* has = nullptr;
      for (const auto& o : holders) {
        CounterRanges one{{first, first}};
        uint64_t f = 0, n = 0;
        if (!FirstMissing(one, *o.counters, &f, &n)) {
          has = &o;
          break;
        }
      }
      const auto xid = writer(key.first, key.second, first);
      if (xid && mismatched.count(*xid) != 0) continue;  // its side-mismatch says it
      Violation v{Kind::kCopiesDiffer, xid, {nodes[h.node]->node}, {}};
      if (has != nullptr) v.nodes.push_back(nodes[has->node]->node);
      v.detail = fmt::format("cache {} partition {}: update counter {}{} applied on {} but not here", key.first,
                             key.second, first, count > 1 ? fmt::format(" (and {} more)", count - 1) : std::string(),
                             has != nullptr ? nodes[has->node]->node : std::string("another node"));
      report.violations.push_back(std::move(v));
    }
  }
}

}  // namespace cut
