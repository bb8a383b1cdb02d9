#include "app/increment_windows.h"

#include <algorithm>

#include "libcut/side.h"

namespace app {

WalTally::WalTally(size_t nodes) {
  for (size_t i = 0; i < nodes; ++i) nodes_.push_back(std::make_unique<Node>());
}

cut::RecordTap WalTally::Tap(size_t i) {
  if (i >= nodes_.size()) return nullptr;
  Node* n = nodes_[i].get();
  return [n](const wal::Record& r) {
    ++n->now.records;
    n->now.bytes += r.size;
    switch (static_cast<wal::RecordType>(r.type)) {
      case wal::RecordType::kTx:
        if (r.tx.state == wal::TxState::kCommitted) ++n->now.commits;
        if (cut::IsCommit(r.tx.state)) ++n->now.decided;
        break;
      case wal::RecordType::kCutFinish: {
        const wal::Uuid& id = r.decoded.cut_finish.cut_id;
        n->finish.emplace(std::make_pair(id.hi, id.lo), n->now);  // the first, as the index takes it
        break;
      }
      case wal::RecordType::kClusterSnapshot:
        n->bases.push_back({{std::string(r.decoded.snapshot.name), r.ptr}, n->now});
        break;
      default: break;
    }
  };
}

namespace {

// A count at a later point less the count at an earlier one; a previous cut whose Finish
// came later on the node (cuts finishing out of order) adds nothing, rather than wrapping.
uint64_t Since(uint64_t at_end, uint64_t at_begin) { return at_end - std::min(at_end, at_begin); }

}  // namespace

std::vector<std::optional<IncrementWindow>> IncrementWindows(const cut::ClusterReport& report,
                                                             const std::vector<cut::NodeIndex>& indexes,
                                                             const WalTally& tally,
                                                             const std::map<std::string, size_t>& node_of) {
  std::vector<std::optional<IncrementWindow>> out(report.cuts.size());
  std::map<std::string, size_t> last;  // base -> its last consistent cut so far
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    if (c.status != cut::CutStatus::kConsistent || c.base.empty()) continue;
    IncrementWindow w;
    w.to_ts = c.finish_ts;
    const auto prev = last.find(c.base);
    const cut::CutReport* p = prev == last.end() ? nullptr : &report.cuts[prev->second];
    if (p != nullptr) {
      w.from_ts = p->finish_ts;
    } else {
      for (const auto& idx : indexes) {
        for (const auto& s : idx.snapshots) {
          if (s.name == c.base && s.timestamp <= c.finish_ts) w.from_ts = std::max(w.from_ts, s.timestamp);
        }
      }
    }
    for (const auto& row : c.nodes) {
      const auto k = node_of.find(row.node);
      if (k == node_of.end() || k->second >= indexes.size() || !row.has_finish) continue;
      const WalTally::Node& n = tally.node(k->second);
      const auto end = n.finish.find({c.id.hi, c.id.lo});
      if (end == n.finish.end()) continue;
      WalTally::Counts begin;
      // The node's Before commits of each side: every commit before the Finish record
      // but the After ones (or every commit before the base snapshot's record).
      const cut::NodeIndex& idx = indexes[k->second];
      const cut::CutOnNode* on = cut::FindCut(idx, c.id);
      uint64_t before_end = Since(end->second.decided, on ? on->after_by_finish : 0);
      uint64_t before_begin = 0;
      const auto from = p == nullptr ? n.finish.end() : n.finish.find({p->id.hi, p->id.lo});
      if (from != n.finish.end()) {
        begin = from->second;
        const cut::CutOnNode* was = cut::FindCut(idx, p->id);
        before_begin = Since(begin.decided, was ? was->after_by_finish : 0);
      } else {
        for (const auto& [base, counts] : n.bases) {
          if (base.first == c.base && base.second < row.finish) begin = counts;
        }
        before_begin = begin.decided;
      }
      w.records += Since(end->second.records, begin.records);
      w.bytes += Since(end->second.bytes, begin.bytes);
      w.commits += Since(end->second.commits, begin.commits);
      w.before_commits += Since(before_end, before_begin);
    }
    out[i] = w;
    last[c.base] = i;
  }
  return out;
}

}  // namespace app
