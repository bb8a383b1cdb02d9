#include "libcut/cluster_check.h"

#include "libcut/tx_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace cut {

const char* CutStatusName(CutStatus s) {
  switch (s) {
    case CutStatus::kConsistent: return "consistent";
    case CutStatus::kInconsistent: return "inconsistent";
    case CutStatus::kIncomplete: return "incomplete";
    case CutStatus::kUnverifiable: return "unverifiable";
  }
  return "?";
}

bool FailsCheck(const CutReport& c, bool named) {
  if (c.status == CutStatus::kConsistent) return false;
  if (c.status == CutStatus::kUnverifiable || named) return true;
  bool complete = true;
  for (const auto& n : c.nodes) complete = complete && n.has_start && n.has_finish;
  if (complete) return true;
  // A cut that failed (some baseline node wrote no Finish record) is the algorithm's own
  // verdict; anything else wrong with it is damage.
  return std::any_of(c.violations.begin(), c.violations.end(), [](const Violation& v) {
    return v.kind != "missing-start" && v.kind != "missing-finish";
  });
}

namespace {

const CutOnNode* FindCut(const NodeIndex& n, const wal::Uuid& id, size_t* pos = nullptr) {
  for (size_t i = 0; i < n.cuts.size(); ++i) {
    if (n.cuts[i].id == id) {
      if (pos) *pos = i;
      return &n.cuts[i];
    }
  }
  return nullptr;
}

const char* SideName(Side s) { return s == Side::kBefore ? "Before" : "After"; }

bool HasSnapshot(const NodeIndex& n, const std::string& name) {
  return std::any_of(n.snapshots.begin(), n.snapshots.end(), [&](const BaseSnapshot& s) { return s.name == name; });
}

// A baseline node of one cut: what was read of it (null when nothing was given for it)
// and its entry in the cluster file (null without one).
struct Member {
  std::string name;
  const NodeIndex* index = nullptr;
  const ClusterNode* info = nullptr;
};

// The cut's baseline (see cluster_check.h). Its topology version is the one its Start
// records carry; a cut with no Start record anywhere is taken at the latest version.
std::vector<Member> BaselineOf(const std::vector<const NodeIndex*>& all, const ClusterInfo* cluster,
                               const wal::Uuid& id) {
  std::vector<Member> out;
  if (cluster == nullptr) {
    for (const auto* n : all) out.push_back({n->node, n, nullptr});
    return out;
  }
  uint32_t version = 0;
  bool started = false;
  for (const auto* n : all) {
    const CutOnNode* c = FindCut(*n, id);
    if (c != nullptr && c->has_start) {
      version = std::max(version, c->topology_version);
      started = true;
    }
  }
  for (const auto& node : cluster->nodes) {
    const bool member = started ? ClusterInfo::MemberAt(node, version) : node.server && !node.left_version;
    if (!member) continue;
    Member m{node.name, nullptr, &node};
    for (const auto* n : all) {
      if (n->node == node.name) m.index = n;
    }
    out.push_back(std::move(m));
  }
  return out;
}

// Why nothing read of member `m` can be trusted, as a violation kind and a detail; an
// empty kind when its WAL was read and is its own.
std::pair<std::string, std::string> Untrusted(const Member& m, const ClusterInfo* cluster) {
  if (m.index == nullptr) return {"unreadable-wal", "no WAL was given for it"};
  const NodeIndex& n = *m.index;
  if (!n.open_error.empty()) return {"unreadable-wal", n.open_error};
  if (n.records == 0) {
    return {"unreadable-wal", n.read_errors.empty() ? std::string("its WAL holds no record")
                                                    : "no record of its WAL could be read: " + n.read_errors[0]};
  }
  if (m.info != nullptr && (n.node_id != m.info->id || n.order != m.info->order)) {
    std::string whose;
    for (const auto& other : cluster->nodes) {
      if (other.id == n.node_id) whose = fmt::format(" ({} in the cluster file)", other.name);
    }
    return {"foreign-wal", fmt::format("its WAL was written by node {} with order {}{}, not by {} ({}, order {})",
                                       n.node_id.ToString(), n.order, whose, m.name, m.info->id.ToString(),
                                       m.info->order)};
  }
  return {};
}

// The window transactions of one cut on all its baseline nodes, by id (see CheckCut).
struct CutJoin {
  struct Seen {
    wal::TxId xid;
    wal::Pointer at;  // its commit on the first node that has it
    uint64_t nodes;   // the nodes that committed it, when `masked`
    uint64_t after;   // those that have it After, when `masked`
    uint32_t node;    // that first node, by index in `nodes`
    Side side;        // there
  };
  bool valid = false;   // built for the cut checked last
  bool masked = false;  // at most 64 nodes: the masks are kept
  std::vector<const NodeIndex*> nodes;
  IdIndex first;        // xid -> index in `seen`
  std::vector<Seen> seen;

  // The entry of `x`, or nullptr.
  const Seen* Find(const wal::TxId& x) const {
    const uint32_t k = first.Find(x, [this](uint32_t i) -> const wal::TxId& { return seen[i].xid; });
    return k == UINT32_MAX ? nullptr : &seen[k];
  }
};

// Why a baseline node that wrote neither record of a cut lost them, or empty when it
// may lack them. A cut may fail on a node before its Start record is written there, so
// a node that went on writing after the cut started elsewhere may lack both records; a
// node whose WAL ends before the cut started lost them, unless it left the cluster (by
// the cluster file) then.
std::string WhyLost(const Member& m) {
  if (m.info == nullptr) return "every node given is in the baseline when there is no cluster file";
  if (!m.info->left_version) return "it never left the cluster";
  return {};
}

// The cut's row for each member, its start and finish times and base, and the
// violations of members that lack records. Returns whether every member has both.
bool FillRows(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on, CutReport& report,
              std::vector<std::string>* lacking, std::vector<std::pair<size_t, const NodeIndex*>>* end_notes) {
  bool all_records = true;
  for (size_t i = 0; i < members.size(); ++i) {
    CutNodeRow row;
    row.node = members[i].name;
    if (on[i] != nullptr) {
      row.has_start = on[i]->has_start;
      row.has_finish = on[i]->has_finish;
      row.start = on[i]->start;
      row.finish = on[i]->finish;
      row.before = on[i]->before.size();
      row.after = on[i]->after.size();
      report.finish_ts = std::max(report.finish_ts, on[i]->finish_ts);
      if (report.base.empty()) report.base = on[i]->base;
    }
    if (!row.has_start || !row.has_finish) {
      all_records = false;
      lacking->push_back(fmt::format("{} lacks the {} record", row.node,
                                     !row.has_start && !row.has_finish ? "Start and Finish"
                                     : !row.has_start                 ? "Start"
                                                                      : "Finish"));
      // A Finish without its Start is reported by the node's own finish-without-start.
      if (row.has_start || !row.has_finish) {
        if (members[i].index != nullptr) end_notes->emplace_back(report.violations.size(), members[i].index);
        report.violations.push_back({!row.has_start ? "missing-start" : "missing-finish", std::nullopt, {row.node},
                                     lacking->back()});
      }
    }
    report.nodes.push_back(row);
  }
  return all_records;
}

// Marks the cut unverifiable for every member whose reading cannot be trusted for it.
// Returns whether some member's WAL as a whole cannot (the cut is checked no further).
bool CheckMembersReadable(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                          const ClusterInfo* cluster, bool over, CutReport& report,
                          std::vector<std::pair<size_t, const NodeIndex*>>* end_notes) {
  auto unverifiable = [&](const char* kind, size_t i, std::string detail) {
    if (report.status != CutStatus::kUnverifiable) report.reason = fmt::format("{}: {}", members[i].name, detail);
    report.status = CutStatus::kUnverifiable;
    if (kind != nullptr) report.violations.push_back({kind, std::nullopt, {members[i].name}, std::move(detail)});
  };
  bool untrusted = false;
  for (size_t i = 0; i < members.size(); ++i) {
    auto [kind, detail] = Untrusted(members[i], cluster);
    if (!kind.empty()) {
      unverifiable(kind.c_str(), i, detail);
      untrusted = true;
      continue;
    }
    const NodeIndex& n = *members[i].index;
    if (on[i] != nullptr && on[i]->unverifiable) {
      unverifiable(nullptr, i, "WAL damaged in the cut's range: " + *on[i]->unverifiable);
    }
    if (!report.base.empty() && !HasSnapshot(n, report.base)) {
      unverifiable("wal-misses-base", i,
                   fmt::format("its WAL does not reach back to the ClusterSnapshotRecord of \"{}\" (it begins at {})",
                               report.base, n.begin.ToString()));
    }
    if (on[i] == nullptr && over && report.start_ts != 0 && n.last_ts < report.start_ts) {
      std::string why = WhyLost(members[i]);
      if (!why.empty()) {
        end_notes->emplace_back(report.violations.size(), &n);
        unverifiable("records-lost", i,
                     fmt::format("its WAL ends before the cut started elsewhere (its last record is of time {}, the "
                                 "first Start record of time {}), though {}",
                                 n.last_ts, report.start_ts, why));
      }
    }
  }
  return untrusted;
}

// `last_start[i]`: the latest Start timestamp node `all[i]` has read. Violations whose
// detail must end with where a node's WAL ends are listed in `end_notes` (violation,
// node), to be completed when the reading is over.
void CheckCut(const std::vector<const NodeIndex*>& all, const ClusterInfo* cluster, const std::vector<uint64_t>& last_start,
              CutReport& report, std::vector<std::pair<size_t, const NodeIndex*>>* end_notes, CutJoin* join) {
  join->valid = false;
  const wal::Uuid id = report.id;
  const std::vector<Member> members = BaselineOf(all, cluster, id);
  std::vector<const CutOnNode*> on(members.size(), nullptr);
  std::vector<size_t> pos(members.size(), 0);
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].index != nullptr) on[i] = FindCut(*members[i].index, id, &pos[i]);
    if (on[i] != nullptr && on[i]->has_start && (report.start_ts == 0 || on[i]->start_ts < report.start_ts)) {
      report.start_ts = on[i]->start_ts;
    }
  }
  // The cut is over (and so cannot still be running) when any node wrote something
  // later: a later cut's Start, or a later full snapshot.
  // "Later" is after the last of this cut's own Start records: the next cut starts only
  // once this one is over everywhere.
  uint64_t own_last_start = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (on[i] != nullptr && on[i]->has_start) own_last_start = std::max(own_last_start, on[i]->start_ts);
  }
  bool over = false;
  for (size_t i = 0; i < all.size(); ++i) {
    over = over || last_start[i] > own_last_start;
    for (const auto& s : all[i]->snapshots) over = over || s.timestamp > own_last_start;
  }
  std::vector<std::string> lacking;
  const bool all_records = FillRows(members, on, report, &lacking, end_notes);
  const bool untrusted = CheckMembersReadable(members, on, cluster, over, report, end_notes);
  // A node's own problems are reported whatever the rest: a Finish without its Start, a
  // duplicate record, are damage even on a cut that failed.
  for (size_t i = 0; i < members.size(); ++i) {
    if (on[i] == nullptr) continue;
    for (const auto& p : on[i]->problems) {
      Violation v{p.kind, std::nullopt, {members[i].name}, fmt::format("{} (at {})", p.detail, p.at.ToString())};
      if (!p.xid.IsNull()) v.xid = p.xid;
      report.violations.push_back(std::move(v));
    }
  }
  if (!all_records || untrusted) {
    if (report.status != CutStatus::kUnverifiable) {
      report.status = over ? CutStatus::kInconsistent : CutStatus::kIncomplete;
      std::string why;
      for (const auto& l : lacking) why += (why.empty() ? "" : "; ") + l;
      report.reason = why;
    }
    // A cut without all its records is not checked further: it cannot be restored.
    return;
  }
  std::vector<const NodeIndex*> nodes;
  for (const auto& m : members) nodes.push_back(m.index);
  std::map<uint16_t, size_t> by_order;
  for (size_t i = 0; i < nodes.size(); ++i) by_order[nodes[i]->order] = i;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (on[i]->base != report.base) {
      report.violations.push_back({"base-mismatch", std::nullopt, {nodes[i]->node},
                                   fmt::format("increment of \"{}\" here but of \"{}\" on {}", on[i]->base,
                                               report.base, nodes[0]->node)});
    }
  }
  // Every transaction on the same side on every node that committed it. One table of the
  // window transactions of all nodes, with the nodes that committed each (and those that
  // have it After) when they fit a mask, serves this rule, the participant rule and the
  // nesting of the next cut.
  CutJoin& j = *join;
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
  j.seen.reserve(total);
  constexpr size_t kAhead = 8;  // prefetch distance
  for (size_t i = 0; i < nodes.size(); ++i) {
    const uint64_t bit = j.masked ? uint64_t{1} << i : 0;
    const auto& txs = on[i]->txs;
    for (size_t k = 0; k < txs.size(); ++k) {
      if (k + kAhead < txs.size()) j.first.Prefetch(txs[k + kAhead].hash);
      const TxSide& t = txs[k];
      const auto [at, fresh] = j.first.Insert(t.xid, t.hash, static_cast<uint32_t>(j.seen.size()),
                                              [&](uint32_t e) -> const wal::TxId& { return j.seen[e].xid; });
      if (fresh) j.seen.push_back(CutJoin::Seen{t.xid, t.commit, 0, 0, static_cast<uint32_t>(i), t.side});
      CutJoin::Seen& f = j.seen[at];
      f.nodes |= bit;
      if (t.side == Side::kAfter) f.after |= bit;
      if (!fresh && f.side != t.side) {
        report.violations.push_back(
            {"side-mismatch", t.xid, {nodes[f.node]->node, nodes[i]->node},
             fmt::format("{} on {} (commit at {}), {} on {} (commit at {}); Start/Finish at {}/{} and {}/{}",
                         SideName(f.side), nodes[f.node]->node, f.at.ToString(), SideName(t.side), nodes[i]->node,
                         t.commit.ToString(), on[f.node]->start.ToString(), on[f.node]->finish.ToString(),
                         on[i]->start.ToString(), on[i]->finish.ToString())});
      }
    }
  }
  j.valid = true;
  // A Before transaction is committed, Before, on every participant in the cut. Checked
  // for those committed here after the Start record: they were in flight when the cut
  // started, so every participant commits them inside its own window of this cut.
  // The window argument needs the previous cut (whose Start opens the participant's
  // window) to have finished everywhere: a failed cut does not wait for the transactions
  // it watched, so one of them can still be in flight at the next cut's start.
  std::vector<bool> window_sound(nodes.size(), true);
  static thread_local std::vector<TxTable> windows;  // without masks: built when needed
  if (!j.masked) {
    windows.resize(std::max(windows.size(), nodes.size()));
    for (size_t o = 0; o < nodes.size(); ++o) windows[o].Reset(0);
  }
  for (size_t o = 0; o < nodes.size(); ++o) {
    if (pos[o] == 0) continue;
    const wal::Uuid prev = nodes[o]->cuts[pos[o] - 1].id;
    for (const auto& n : nodes) {
      const CutOnNode* p = FindCut(*n, prev);
      if (p == nullptr || !p->has_finish) window_sound[o] = false;
    }
  }
  // Committed near the cut on node `o`.
  auto committed_on = [&](const wal::TxId& x, size_t o) {
    if (j.masked) return (j.Find(x)->nodes >> o & 1) != 0;
    auto& window = windows[o];
    if (window.size() == 0 && !on[o]->txs.empty()) {
      window.Reset(on[o]->txs.size());
      for (const auto& w : on[o]->txs) window.Insert(w.xid, 0);
    }
    return window.Find(x) != nullptr;
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& tp : on[i]->participants) {
      const TxSide& t = on[i]->txs[tp.tx];
      if (t.side != Side::kBefore || t.commit < on[i]->start) continue;
      for (uint16_t order : tp.nodes) {
        auto o = by_order.find(order);
        if (o == by_order.end() || o->second == i || !window_sound[o->second]) continue;
        if (!committed_on(t.xid, o->second)) {
          report.violations.push_back(
              {"before-missing-on-participant", t.xid, {nodes[i]->node, nodes[o->second]->node},
               fmt::format("Before on {} (commit at {}) but not committed near the cut on participant {}",
                           nodes[i]->node, t.commit.ToString(), nodes[o->second]->node)});
        }
      }
    }
  }
  if (!report.violations.empty()) {
    report.status = report.status == CutStatus::kUnverifiable ? report.status : CutStatus::kInconsistent;
    if (report.reason.empty()) {
      report.reason = fmt::format("{} violation(s), first: {}", report.violations.size(), report.violations[0].kind);
    }
  }
}

// Before of cut k is contained in Before of cut k+1, on every node. `join` is the join
// of `next`, when CheckCut built it.
void CheckNesting(const std::vector<const NodeIndex*>& nodes, CutReport& prev, CutReport& next, const CutJoin& join) {
  const bool use_join = join.valid && join.masked;
  for (const auto& n : nodes) {
    const CutOnNode* a = FindCut(*n, prev.id);
    const CutOnNode* b = FindCut(*n, next.id);
    if (a == nullptr || b == nullptr || !a->has_finish || !b->has_finish) continue;
    // After in the next cut: listed in its after set, or classified After there (by the
    // join's masks, or else a table of this node's).
    static thread_local TxTable table;
    static thread_local IdSet listed;
    size_t at = join.nodes.size();
    if (use_join) at = static_cast<size_t>(std::find(join.nodes.begin(), join.nodes.end(), n) - join.nodes.begin());
    const bool by_join = at < join.nodes.size();
    if (by_join) {
      listed.Assign(b->after);
    } else {
      table.Reset(b->after.size() + b->txs.size());
      for (const auto& x : b->after) table.Insert(x, 0);
      for (const auto& t : b->txs) {
        if (t.side == Side::kAfter) table.Insert(t.xid, 0);
      }
    }
    auto after_next = [&](const wal::TxId& x) {
      if (!by_join) return table.Find(x) != nullptr;
      if (listed.Contains(x)) return true;
      const CutJoin::Seen* e = join.Find(x);
      return e != nullptr && (e->after >> at & 1) != 0;
    };
    for (size_t k = 0; k < a->txs.size(); ++k) {
      if (use_join && k + 8 < a->txs.size()) join.first.Prefetch(a->txs[k + 8].hash);
      const TxSide& t = a->txs[k];
      if (t.side == Side::kBefore && after_next(t.xid)) {
        next.violations.push_back({"not-nested", t.xid, {n->node},
                                   fmt::format("Before in cut {} but After in this cut on {} (commit at {})",
                                               prev.id.ToString(), n->node, t.commit.ToString())});
        if (next.status == CutStatus::kConsistent) {
          next.status = CutStatus::kInconsistent;
          next.reason = "increments are not nested";
        }
      }
    }
  }
}

// Whether CheckNesting can find anything, from the joins of the two cuts alone: some
// transaction Before on a node in `prev` and After (or listed after) there in `next`.
// False is a proof; true, or joins that cannot tell, send the cuts to CheckNesting.
bool NestingMayFail(const CutJoin& prev, const CutJoin& next, const wal::Uuid& next_id) {
  if (!prev.valid || !next.valid || !prev.masked || !next.masked || prev.nodes != next.nodes) return true;
  auto before_in_prev = [&](const wal::TxId& x) -> uint64_t {
    const CutJoin::Seen* e = prev.Find(x);
    return e == nullptr ? 0 : e->nodes & ~e->after;
  };
  for (const auto& e : next.seen) {
    if (e.after != 0 && (before_in_prev(e.xid) & e.after) != 0) return true;
  }
  for (size_t i = 0; i < next.nodes.size(); ++i) {
    const CutOnNode* b = FindCut(*next.nodes[i], next_id);
    if (b == nullptr) continue;
    for (const auto& x : b->after) {
      if ((before_in_prev(x) >> i & 1) != 0) return true;
    }
  }
  return false;
}

// Releases what only the check of this cut needed, on every node.
void Release(std::vector<NodeIndex>& views, const wal::Uuid& id) {
  for (auto& v : views) {
    for (auto& c : v.cuts) {
      if (c.id != id) continue;
      std::vector<TxSide>().swap(c.txs);
      std::vector<TxParticipants>().swap(c.participants);
      std::vector<wal::TxId>().swap(c.before);
      std::vector<wal::TxId>().swap(c.after);
      std::vector<LocalProblem>().swap(c.problems);
    }
  }
}

// The nodes' problems as a whole, in node order: what makes the check fail whatever the
// cuts. Every server of the cluster file must have been given.
std::vector<NodeProblem> NodeProblems(const std::vector<NodeIndex>& views, const ClusterInfo* cluster) {
  std::vector<NodeProblem> out;
  if (cluster != nullptr) {
    for (const auto& node : cluster->nodes) {
      if (!node.server) continue;
      const bool given = std::any_of(views.begin(), views.end(), [&](const NodeIndex& v) { return v.node == node.name; });
      if (!given) out.push_back({node.name, "not-given", "a server of the cluster file, but no WAL was given for it"});
    }
  }
  for (const auto& v : views) {
    Member m{v.node, &v, cluster != nullptr ? cluster->FindNode(v.node) : nullptr};
    if (auto [kind, detail] = Untrusted(m, cluster); !kind.empty()) {
      out.push_back({v.node, kind, detail});
    } else if (!v.read_errors.empty()) {
      out.push_back({v.node, "read-errors",
                     v.read_errors.size() == 1 ? v.read_errors[0]
                                               : fmt::format("{} (and {} more)", v.read_errors[0], v.read_errors.size() - 1)});
    }
  }
  return out;
}

}  // namespace

StreamedCluster CheckClusterStreaming(std::vector<std::unique_ptr<CutFeed>> given, const ClusterInfo* cluster) {
  const size_t n = given.size();
  std::vector<std::optional<CutOnNode>> first_head(n);
  std::vector<bool> first_ended(n, false);
  // The first cut of each node (or its end) tells its order: nodes go in node order.
  for (size_t i = 0; i < n; ++i) {
    CutOnNode c;
    if (given[i]->Next(&c)) {
      first_head[i] = std::move(c);
    } else {
      first_ended[i] = true;
    }
  }
  std::vector<NodeIndex> progress(n);
  for (size_t i = 0; i < n; ++i) progress[i] = given[i]->Progress();
  // In node order: the cluster file's when there is one (a node whose WAL cannot be read
  // has no order of its own), else the one their WALs give.
  std::vector<size_t> rank(n);
  for (size_t i = 0; i < n; ++i) {
    rank[i] = progress[i].order;
    const ClusterNode* c = cluster != nullptr ? cluster->FindNode(progress[i].node) : nullptr;
    if (c != nullptr) rank[i] = c->order;
  }
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  std::vector<std::unique_ptr<CutFeed>> feeds(n);
  std::vector<std::optional<CutOnNode>> head(n);
  std::vector<bool> ended(n);
  StreamedCluster out;
  std::vector<NodeIndex>& views = out.nodes;
  views.resize(n);
  for (size_t k = 0; k < n; ++k) {
    feeds[k] = std::move(given[perm[k]]);
    head[k] = std::move(first_head[perm[k]]);
    ended[k] = first_ended[perm[k]];
    views[k] = std::move(progress[perm[k]]);
  }
  std::vector<const NodeIndex*> ptrs;
  for (const auto& v : views) ptrs.push_back(&v);
  std::vector<uint64_t> last_start(n, 0);
  std::vector<std::tuple<size_t, size_t, const NodeIndex*>> end_notes;  // cut, violation, node
  std::map<std::string, size_t> last;  // base -> its last consistent cut, kept for nesting
  std::map<std::string, uint32_t> increments;
  CutJoin join;
  std::map<std::string, CutJoin> last_join;  // base -> the join of its last consistent cut
  for (;;) {
    // Every node one cut ahead (or at its end): then the earliest head is the next cut.
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      if (!head[i] && !ended[i]) {
        CutOnNode c;
        if (feeds[i]->Next(&c)) {
          head[i] = std::move(c);
        } else {
          ended[i] = true;
        }
      }
      // A cut without a Start record here goes by its Finish record's time.
      auto key = [&](size_t k) { return head[k]->has_start ? head[k]->start_ts : head[k]->finish_ts; };
      if (head[i] && (best == n || key(i) < key(best))) best = i;
    }
    if (best == n) break;
    const wal::Uuid id = head[best]->id;
    for (size_t i = 0; i < n; ++i) {
      if (head[i] && head[i]->id == id) {
        views[i].cuts.push_back(std::move(*head[i]));
        head[i].reset();
      }
      views[i].snapshots = feeds[i]->Snapshots();
      last_start[i] = feeds[i]->LastStartTs();
      const NodeIndex p = feeds[i]->Progress();
      views[i].records = p.records;
      views[i].begin = p.begin;
      views[i].end = p.end;
      views[i].last_ts = p.last_ts;
    }
    CutReport r;
    r.id = id;
    std::vector<std::pair<size_t, const NodeIndex*>> notes;
    CheckCut(ptrs, cluster, last_start, r, &notes, &join);
    for (const auto& [v, node] : notes) end_notes.emplace_back(out.report.cuts.size(), v, node);
    // Each consistent cut against the last consistent cut of the same base.
    auto it = last.find(r.base);
    if (it != last.end() && NestingMayFail(last_join[r.base], join, r.id)) {
      CheckNesting(ptrs, out.report.cuts[it->second], r, join);
    }
    const bool consistent = r.status == CutStatus::kConsistent;
    if (consistent && !r.base.empty()) r.increment = ++increments[r.base];
    out.report.cuts.push_back(std::move(r));
    const size_t index = out.report.cuts.size() - 1;
    if (consistent) {
      if (it != last.end()) Release(views, out.report.cuts[it->second].id);
      last[out.report.cuts[index].base] = index;
      std::swap(last_join[out.report.cuts[index].base], join);  // the old one's memory is reused
    } else {
      Release(views, id);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    NodeIndex final_progress = feeds[i]->Progress();
    final_progress.cuts = std::move(views[i].cuts);
    views[i] = std::move(final_progress);
  }
  for (const auto& [c, v, node] : end_notes) {
    auto& detail = out.report.cuts[c].violations[v].detail;
    detail += fmt::format(" (WAL read up to {})", node->end.ToString());
  }
  out.report.problems = NodeProblems(views, cluster);
  return out;
}

ClusterReport CheckCluster(const std::vector<NodeIndex>& indexes, const ClusterInfo* cluster) {
  std::vector<std::unique_ptr<CutFeed>> feeds;
  for (const auto& index : indexes) feeds.push_back(IndexFeed(index));
  return CheckClusterStreaming(std::move(feeds), cluster).report;
}

}  // namespace cut
