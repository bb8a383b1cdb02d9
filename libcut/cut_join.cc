#include "libcut/cut_join.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "libcut/commit_window.h"

namespace cut {
namespace {

const char* SideName(Side s) { return s == Side::kBefore ? "Before" : "After"; }

}  // namespace

// One table of the window transactions of all nodes, with the nodes that committed each
// (and those that have it After) when they fit a mask.
void JoinCut(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on, CutReport& report,
             CutJoin& j) {
  j.nodes = nodes;
  j.masked = nodes.size() <= 64;
  j.seen.clear();
  size_t total = 0, widest = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    total += on[i]->txs.size();
    widest = std::max(widest, on[i]->txs.size());
  }
  // Sized for the distinct transactions (most are committed on several nodes); it grows
  // if there are more.
  j.first.Reset(std::max(widest, total / 4));
  constexpr size_t kAhead = 8;  // prefetch distance
  for (size_t i = 0; i < nodes.size(); ++i) {
    const uint64_t bit = j.masked ? uint64_t{1} << i : 0;
    const auto& txs = on[i]->txs;
    for (size_t k = 0; k < txs.size(); ++k) {
      if (k + kAhead < txs.size()) j.first.Prefetch(txs[k + kAhead].hash());
      const TxSide& t = txs[k];
      const auto [at, fresh] = j.first.Insert(t.xid, t.hash(), static_cast<uint32_t>(j.seen.size()),
                                              [&](uint32_t e) -> const wal::TxId& { return j.seen[e].xid; });
      if (fresh) {
        j.seen.push_back(CutJoin::Seen{t.xid, 0, 0, static_cast<uint32_t>(i), static_cast<uint32_t>(k), t.side});
      }
      CutJoin::Seen& f = j.seen[at];
      f.nodes |= bit;
      f.participants = std::max(f.participants, t.participants);
      if (t.side == Side::kAfter) f.after |= bit;
      if (!fresh && f.side != t.side) {
        report.violations.push_back(
            {Kind::kSideMismatch,
             t.xid,
             {nodes[f.node]->node, nodes[i]->node},
             fmt::format("{} on {} (commit at {}), {} on {} (commit at {}); Start/Finish at {}/{} and {}/{}",
                         SideName(f.side), nodes[f.node]->node, on[f.node]->txs[f.tx].commit().ToString(),
                         SideName(t.side), nodes[i]->node, t.commit().ToString(), on[f.node]->start.ToString(),
                         on[f.node]->finish.ToString(), on[i]->start.ToString(), on[i]->finish.ToString())});
      }
    }
  }
  j.valid = true;
}

void KeepBeforeOnly(CutJoin& j) {
  if (!j.valid || !j.masked) return;
  Chunked<CutJoin::Seen> kept;
  j.seen.ForEach([&](const CutJoin::Seen& s) {
    if ((s.nodes & ~s.after) != 0) kept.push_back(s);
  });
  j.seen = std::move(kept);
  j.first.Free();
  j.first.Reset(j.seen.size());
  for (size_t k = 0; k < j.seen.size(); ++k) {
    j.first.Insert(j.seen[k].xid, static_cast<uint32_t>(k),
                   [&](uint32_t e) -> const wal::TxId& { return j.seen[e].xid; });
  }
}

// The window argument needs the previous cut (whose Start opens the participant's window)
// to have finished everywhere: a failed cut does not wait for the transactions it watched,
// so one of them can still be in flight at the next cut's start.
void ParticipantCheck::Check(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on,
                             const std::vector<size_t>& pos, const CutJoin& j, CutReport& report) {
  std::map<uint16_t, size_t> by_order;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < nodes.size(); ++i) {
    by_order[nodes[i]->order] = i;
    by_name[nodes[i]->node] = i;
  }
  std::vector<bool> window_sound(nodes.size(), true);
  if (!j.masked) {
    windows_.resize(std::max(windows_.size(), nodes.size()));
    for (size_t o = 0; o < nodes.size(); ++o) windows_[o].Reset(0);
  }
  for (size_t o = 0; o < nodes.size(); ++o) {
    if (pos[o] == 0) continue;
    const wal::Uuid prev = nodes[o]->cuts[pos[o] - 1].id;
    for (const auto& n : nodes) {
      const CutOnNode* p = FindCut(*n, prev);
      if (p == nullptr || !p->has_finish) window_sound[o] = false;
    }
  }
  // Still missing from an earlier cut of the same base, unless committed now.
  std::vector<Missing> still;
  for (auto& m : missing_) {
    auto o = by_name.find(m.participant);
    if (m.base != report.base || o == by_name.end()) continue;
    if (CommittedOn(m.xid, o->second, nodes, on, pos, j)) continue;
    report.violations.push_back({Kind::kBeforeMissingOnParticipant, m.xid, {m.on, m.participant}, m.detail});
    still.push_back(std::move(m));
  }
  missing_ = std::move(still);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& tp : on[i]->participants) {
      const TxSide& t = on[i]->txs[tp.tx];
      if (t.side != Side::kBefore) continue;
      if (mismatched_.count(t.xid) != 0) continue;
      for (uint16_t order : NodesOf(*on[i], tp)) {
        auto o = by_order.find(order);
        if (o == by_order.end() || o->second == i || !window_sound[o->second]) continue;
        if (!CommittedOn(t.xid, o->second, nodes, on, pos, j)) {
          std::string detail =
              fmt::format("Before on {} (commit at {}) but not committed in participant {}'s window of the cut{}",
                          nodes[i]->node, t.commit().ToString(), nodes[o->second]->node,
                          t.commit() < on[i]->start ? "" : " (in flight at its Start)");
          report.violations.push_back(
              {Kind::kBeforeMissingOnParticipant, t.xid, {nodes[i]->node, nodes[o->second]->node}, detail});
          missing_.push_back({t.xid, nodes[i]->node, nodes[o->second]->node, report.base,
                              fmt::format("{}, since cut {}", detail, report.id.ToString())});
        }
      }
    }
  }
  // Apache Ignite: transactions newly Before somewhere that fewer nodes committed (in the
  // window, or listed After the cut before there) than their TX_RECORDs name.
  report.participants_counted = j.masked;
  if (j.masked) {
    j.seen.ForEach([&](const CutJoin::Seen& s) {
      const size_t needed = s.participants == kAllNodes ? nodes.size() : s.participants;
      if (needed == 0 || (s.nodes & ~s.after) == 0) return;
      size_t have = static_cast<size_t>(std::popcount(s.nodes));
      for (size_t o = 0; o < nodes.size() && have < needed; ++o) {
        if ((s.nodes >> o & 1) == 0 && CommittedOn(s.xid, o, nodes, on, pos, j)) ++have;
      }
      if (have < needed) ++report.short_of_participants;
    });
  }
  mismatched_.clear();
  for (const auto& v : report.violations) {
    if (v.kind == Kind::kSideMismatch && v.xid) mismatched_.insert(*v.xid);
  }
  for (size_t i = 0; i < nodes.size(); ++i) last_after_[nodes[i]->node] = {report.id, on[i]->after};
}

bool ParticipantCheck::CommittedOn(const wal::TxId& x, size_t o, const std::vector<const NodeIndex*>& nodes,
                                   const std::vector<const CutOnNode*>& on, const std::vector<size_t>& pos,
                                   const CutJoin& j) {
  bool in_window = false;
  if (j.masked) {
    const CutJoin::Seen* s = j.Find(x);
    in_window = s != nullptr && (s->nodes >> o & 1) != 0;
  } else {
    auto& window = windows_[o];
    if (window.size() == 0 && !on[o]->txs.empty()) {
      window.Reset(on[o]->txs.size());
      for (const auto& w : on[o]->txs) window.Insert(w.xid, 0);
    }
    in_window = window.Find(x) != nullptr;
  }
  if (in_window || pos[o] == 0) return in_window;
  auto last = last_after_.find(nodes[o]->node);
  if (last == last_after_.end() || last->second.cut != nodes[o]->cuts[pos[o] - 1].id) return false;
  const auto& after = last->second.after;  // rarely asked: a scan
  return std::find(after.begin(), after.end(), x) != after.end();
}

}  // namespace cut
