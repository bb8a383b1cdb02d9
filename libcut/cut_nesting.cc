#include "libcut/cut_nesting.h"

#include <algorithm>

#include <fmt/format.h>

namespace cut {

bool NestingMayFail(const CutJoin& prev, const CutJoin& next, const wal::Uuid& next_id) {
  if (!prev.valid || !next.valid || !prev.masked || !next.masked || prev.nodes != next.nodes) return true;
  auto before_in_prev = [&](const wal::TxId& x) -> uint64_t {
    const CutJoin::Seen* e = prev.Find(x);
    return e == nullptr ? 0 : e->nodes & ~e->after;
  };
  bool may_fail = false;
  next.seen.ForEach([&](const CutJoin::Seen& e) {
    if (!may_fail && e.after != 0 && (before_in_prev(e.xid) & e.after) != 0) may_fail = true;
  });
  if (may_fail) return true;
  for (size_t i = 0; i < next.nodes.size(); ++i) {
    const CutOnNode* b = FindCut(*next.nodes[i], next_id);
    if (b == nullptr) continue;
    for (const auto& x : b->after) {
      if ((before_in_prev(x) >> i & 1) != 0) return true;
    }
  }
  return false;
}

void NestingCheck::Check(const std::vector<const NodeIndex*>& nodes, const CutReport& prev, CutReport& next,
                         const CutJoin& join) {
  const bool use_join = join.valid && join.masked;
  for (const auto& n : nodes) {
    const CutOnNode* a = FindCut(*n, prev.id);
    const CutOnNode* b = FindCut(*n, next.id);
    if (a == nullptr || b == nullptr || !a->has_finish || !b->has_finish) continue;
    // After in the next cut: listed in its after set, or classified After there (by the
    // join's masks, or else a table of this node's).
    size_t at = join.nodes.size();
    if (use_join) at = static_cast<size_t>(std::find(join.nodes.begin(), join.nodes.end(), n) - join.nodes.begin());
    const bool by_join = at < join.nodes.size();
    if (by_join) {
      listed_.Assign(b->after);
    } else {
      table_.Reset(b->after.size() + b->txs.size());
      for (const auto& x : b->after) table_.Insert(x, 0);
      for (const auto& t : b->txs) {
        if (t.side == Side::kAfter) table_.Insert(t.xid, 0);
      }
    }
    auto after_next = [&](const wal::TxId& x) {
      if (!by_join) return table_.Find(x) != nullptr;
      if (listed_.Contains(x)) return true;
      const CutJoin::Seen* e = join.Find(x);
      return e != nullptr && (e->after >> at & 1) != 0;
    };
    for (size_t k = 0; k < a->txs.size(); ++k) {
      if (use_join && k + 8 < a->txs.size()) join.first.Prefetch(a->txs[k + 8].hash());
      const TxSide& t = a->txs[k];
      if (t.side == Side::kBefore && after_next(t.xid)) {
        next.violations.push_back({Kind::kNotNested,
                                   t.xid,
                                   {n->node},
                                   fmt::format("Before in cut {} but After in this cut on {} (commit at {})",
                                               prev.id.ToString(), n->node, t.commit().ToString())});
        if (next.status == CutStatus::kConsistent) {
          next.status = CutStatus::kInconsistent;
          next.reason = "increments are not nested";
        }
      }
    }
  }
}

}  // namespace cut
