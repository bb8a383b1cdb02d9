#include "libcut/copy_counters.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>

#include "libcut/copy_check.h"
#include "libcut/varint_codec.h"

namespace cut {

void AddCounter(CounterRanges& r, uint64_t c) {
  // The common case: counters come in order.
  if (r.empty() || (r.back().second < UINT64_MAX - 1 && c > r.back().second + 1)) {
    r.emplace_back(c, c);
    return;
  }
  if (r.back().second != UINT64_MAX && c == r.back().second + 1) {
    r.back().second = c;
    return;
  }
  // The first range that ends at c - 1 or later.
  auto it = std::lower_bound(r.begin(), r.end(), c, [](const auto& x, uint64_t v) { return x.second < v - 1; });
  if (c == 0) it = r.begin();
  if (it != r.end() && it->first <= c && c <= it->second) return;  // already there
  if (it != r.end() && it->second != UINT64_MAX && it->second + 1 == c) {
    it->second = c;
    auto next = it + 1;
    if (next != r.end() && c != UINT64_MAX && next->first == c + 1) {
      it->second = next->second;
      r.erase(next);
    }
    return;
  }
  if (it != r.end() && c != UINT64_MAX && it->first == c + 1) {
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

namespace {

void PutRanges(VarintWriter& o, const CounterRanges& r) {
  o.U(r.size());
  uint64_t last = 0;
  for (const auto& [lo, hi] : r) {
    o.U(lo - last);
    o.U(hi - lo);
    last = hi;
  }
}

CounterRanges GetRanges(VarintReader& in) {
  CounterRanges r(in.Count("counter ranges", 2));
  uint64_t last = 0;
  for (size_t k = 0; k < r.size(); ++k) {
    const uint64_t gap = in.U();
    const uint64_t length = in.U();
    if (gap > UINT64_MAX - last || length > UINT64_MAX - last - gap) {
      in.Fail("an update counter beyond 64 bits");
      return {};
    }
    if (k > 0 && gap < 2) {
      in.Fail("counter ranges that overlap or touch");
      return {};
    }
    r[k] = {last + gap, last + gap + length};
    last = r[k].second;
  }
  return r;
}

// `from` (a 32-bit value) moved by a decoded step, or -1 when that leaves 32 bits (no
// signed overflow on any step).
int64_t Step(int64_t from, int64_t step) {
  return step < -int64_t{UINT32_MAX} || step > int64_t{UINT32_MAX} ? -1 : from + step;
}

uint32_t Narrow32(VarintReader& in, int64_t v, const char* what) {
  if (v >= 0 && v <= UINT32_MAX) return static_cast<uint32_t>(v);
  in.Fail(fmt::format("{} out of range", what));
  return 0;
}

}  // namespace

void PutAppliedCounters(VarintWriter& o, const AppliedCounters& a) {
  o.U(a.known ? 1 : 0);
  if (!a.known) return;
  o.U(a.copies.size());
  uint32_t cache = 0, partition = 0;
  for (const auto& c : a.copies) {
    o.U(c.cache - cache);
    o.U(c.cache == cache ? c.partition - partition : c.partition);
    cache = c.cache;
    partition = c.partition;
    PutRanges(o, c.counters);
  }
  o.U(a.window.size());
  int64_t wc = 0, wp = 0, wn = 0;
  for (const auto& u : a.window) {
    o.Z(int64_t{u.cache} - wc);
    o.Z(int64_t{u.partition} - wp);
    o.Z(static_cast<int64_t>(u.counter - static_cast<uint64_t>(wn)));
    o.Tx(u.xid);
    wc = u.cache;
    wp = u.partition;
    wn = static_cast<int64_t>(u.counter);
  }
}

AppliedCounters GetAppliedCounters(VarintReader& in) {
  AppliedCounters a;
  a.known = in.U(1, "a flag") == 1;
  if (!a.known) return a;
  a.copies.resize(in.Count("copies", 3));
  uint32_t cache = 0, partition = 0;
  for (size_t k = 0; k < a.copies.size() && in.ok(); ++k) {
    CopyCounters& c = a.copies[k];
    const uint64_t dc = in.U(UINT32_MAX - cache, "a cache id's step");
    c.cache = cache + static_cast<uint32_t>(dc);
    const uint64_t dp = in.U(dc == 0 ? UINT32_MAX - partition : UINT32_MAX, "a partition's step");
    c.partition = static_cast<uint32_t>(dc == 0 ? partition + dp : dp);
    if (k > 0 && dc == 0 && dp == 0)
      in.Fail(fmt::format("copy {}: cache {} partition {} twice", k, c.cache, c.partition));
    cache = c.cache;
    partition = c.partition;
    c.counters = GetRanges(in);
  }
  a.window.resize(in.Count("window updates", 6));
  int64_t wc = 0, wp = 0;
  uint64_t wn = 0;
  for (auto& u : a.window) {
    u.cache = Narrow32(in, Step(wc, in.Z()), "a cache id");
    u.partition = Narrow32(in, Step(wp, in.Z()), "a partition");
    u.counter = wn + static_cast<uint64_t>(in.Z());
    u.xid = in.Tx();
    wc = u.cache;
    wp = u.partition;
    wn = u.counter;
  }
  if (!in.ok()) return {};
  return a;
}

}  // namespace cut

// ---------------------------------------------------------------------------------------

namespace cut {
namespace {

// The counters of `all` not in `have` (both sorted and merged).
CounterRanges Missing(const CounterRanges& all, const CounterRanges& have) {
  CounterRanges out;
  size_t j = 0;
  for (const auto& [lo, hi] : all) {
    uint64_t c = lo;
    for (;;) {
      while (j < have.size() && have[j].second < c) ++j;
      if (j < have.size() && have[j].first <= c) {  // c is had: go past the range that has it
        if (have[j].second >= hi) break;
        c = have[j].second + 1;
        continue;
      }
      const uint64_t end = j < have.size() ? std::min(hi, have[j].first - 1) : hi;
      out.emplace_back(c, end);
      if (end >= hi) break;
      c = end + 1;
    }
  }
  return out;
}

bool Contains(const CounterRanges& r, uint64_t c) {
  auto it = std::upper_bound(r.begin(), r.end(), c, [](uint64_t v, const auto& x) { return v < x.first; });
  return it != r.begin() && std::prev(it)->second >= c;
}

CounterRanges Union(const std::vector<const CounterRanges*>& of) {
  CounterRanges out;
  for (const auto* r : of) {
    for (const auto& x : *r) out.push_back(x);
  }
  std::sort(out.begin(), out.end());
  CounterRanges merged;
  for (const auto& x : out) {
    if (!merged.empty() && (x.first <= merged.back().second || x.first - 1 == merged.back().second)) {
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
  // The updates of transactions the cut's side-mismatch violations name: those say it.
  std::unordered_set<wal::TxId, wal::TxIdHash> mismatched;
  for (const auto& v : report.violations) {
    if (v.kind == Kind::kSideMismatch && v.xid) mismatched.insert(*v.xid);
  }
  std::set<std::tuple<uint32_t, uint32_t, uint64_t>> said;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, wal::TxId> writers;  // filled when copies differ
  bool writers_read = false;
  auto writer = [&](uint32_t cache, uint32_t partition, uint64_t counter) -> std::optional<wal::TxId> {
    if (!writers_read) {
      for (const auto* c : on) {
        if (c == nullptr) continue;
        for (const auto& u : c->applied.window)
          writers.emplace(std::make_tuple(u.cache, u.partition, u.counter), u.xid);
      }
      writers_read = true;
    }
    auto it = writers.find({cache, partition, counter});
    return it != writers.end() ? std::optional<wal::TxId>(it->second) : std::nullopt;
  };
  for (const auto* c : on) {
    if (c == nullptr || mismatched.empty()) continue;
    for (const auto& u : c->applied.window) {
      if (mismatched.count(u.xid) != 0) said.emplace(u.cache, u.partition, u.counter);
    }
  }
  for (const auto& [key, holders] : copies) {
    if (holders.size() < 2) continue;
    bool alike = true;
    for (const auto& h : holders) alike = alike && *h.counters == *holders[0].counters;
    if (alike) continue;
    std::vector<const CounterRanges*> all;
    for (const auto& h : holders) all.push_back(h.counters);
    const CounterRanges every = Union(all);
    for (const auto& h : holders) {
      const CounterRanges missing = Missing(every, *h.counters);
      // The first missing counter no side-mismatch explains, and how many such.
      std::optional<uint64_t> first;
      uint64_t count = 0;
      for (const auto& [lo, hi] : missing) {
        const uint64_t n = hi - lo;  // the range holds n + 1 counters (saturated: no wrap at 2^64)
        count = n >= UINT64_MAX - count ? UINT64_MAX : count + n + 1;
        for (uint64_t c = lo; !first; ++c) {
          if (said.count({key.first, key.second, c}) == 0) first = c;
          if (c == hi) break;
        }
      }
      for (auto it = said.lower_bound({key.first, key.second, 0});
           it != said.end() && std::get<0>(*it) == key.first && std::get<1>(*it) == key.second; ++it) {
        if (Contains(missing, std::get<2>(*it)) && count > 0) --count;
      }
      if (!first) continue;  // every difference is a side-mismatch's
      const Holder* has = nullptr;
      for (const auto& o : holders) {
        if (Contains(*o.counters, *first)) {
          has = &o;
          break;
        }
      }
      const auto xid = writer(key.first, key.second, *first);
      Violation v{Kind::kCopiesDiffer, xid, {nodes[h.node]->node}, {}};
      if (has != nullptr) v.nodes.push_back(nodes[has->node]->node);
      v.detail = fmt::format("cache {} partition {}: update counter {}{} applied on {} but not here", key.first,
                             key.second, *first, count > 1 ? fmt::format(" (and {} more)", count - 1) : std::string(),
                             has != nullptr ? nodes[has->node]->node : std::string("another node"));
      report.violations.push_back(std::move(v));
    }
  }
}

}  // namespace cut
