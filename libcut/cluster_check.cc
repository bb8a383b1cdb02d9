#include "libcut/cluster_check.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "libcut/copy_check.h"
#include "libcut/cut_baseline.h"
#include "libcut/cut_join.h"
#include "libcut/cut_nesting.h"
#include "libcut/kept_increments.h"

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
  // An Ignite increment every node wrote whole but Ignite failed (not-kept): Ignite's
  // own verdict, as a cut that failed is the algorithm's, whether or not its copies
  // differ (the reason Ignite fails an increment after a rebalance).
  if (complete) {
    const bool not_kept = std::any_of(c.violations.begin(), c.violations.end(),
                                      [](const Violation& v) { return v.kind == Kind::kNotKept; });
    return !not_kept || !std::all_of(c.violations.begin(), c.violations.end(), [](const Violation& v) {
      return v.kind == Kind::kNotKept || v.kind == Kind::kCopiesDiffer;
    });
  }
  // A cut that failed (some baseline node wrote no Finish record) is the algorithm's own
  // verdict; anything else wrong with it is damage.
  return std::any_of(c.violations.begin(), c.violations.end(), [](const Violation& v) {
    return v.kind != Kind::kMissingStart && v.kind != Kind::kMissingFinish;
  });
}

namespace {

// The cuts of a cluster, checked one after another, each as soon as every node has
// handed it over; the tables of the cross-node rules are kept from cut to cut.
class CutChecker {
 public:
  CutChecker(const std::vector<const NodeIndex*>& all, const ClusterInfo* cluster) : all_(all), cluster_(cluster) {}

  // Checks cut `report.id`; `last_start[i]`: the latest Start timestamp node all[i] has
  // read. Violations whose detail must end with where a node's WAL ends go to `notes`.
  void Check(const std::vector<uint64_t>& last_start, CutReport& report, EndNotes* notes);
  // Checks `next` against `prev`, the last consistent cut of the same base before it.
  void CheckNesting(const CutReport& prev, CutReport& next, const CutJoin& prev_join) {
    if (NestingMayFail(prev_join, join_, next.id)) nesting_.Check(all_, prev, next, join_);
  }
  CutJoin& join() { return join_; }

 private:
  bool IsOver(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
              const std::vector<uint64_t>& last_start) const;
  void AddLocalProblems(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                        CutReport& report) const;

  const std::vector<const NodeIndex*>& all_;
  const ClusterInfo* cluster_;
  CutJoin join_;
  ParticipantCheck participants_;
  NestingCheck nesting_;
};

// The cut is over (and so cannot still be running) when any node wrote something later
// than the last of its own Start records: a later cut's Start, or a later full snapshot
// (the next cut starts only once this one is over everywhere).
bool CutChecker::IsOver(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                        const std::vector<uint64_t>& last_start) const {
  uint64_t own_last_start = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (on[i] != nullptr && on[i]->has_start) own_last_start = std::max(own_last_start, on[i]->start_ts);
  }
  for (size_t i = 0; i < all_.size(); ++i) {
    if (last_start[i] > own_last_start) return true;
    for (const auto& s : all_[i]->snapshots) {
      if (s.timestamp > own_last_start) return true;
    }
  }
  return false;
}

// A node's own problems are reported whatever the rest: a Finish without its Start, a
// duplicate record, are damage even on a cut that failed.
void CutChecker::AddLocalProblems(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                                  CutReport& report) const {
  for (size_t i = 0; i < members.size(); ++i) {
    if (on[i] == nullptr) continue;
    for (const auto& p : on[i]->problems) {
      Violation v{p.kind, std::nullopt, {members[i].name}, fmt::format("{} (at {})", p.detail, p.at.ToString())};
      if (!p.xid.IsNull()) v.xid = p.xid;
      report.violations.push_back(std::move(v));
    }
  }
}

void CutChecker::Check(const std::vector<uint64_t>& last_start, CutReport& report, EndNotes* notes) {
  join_.valid = false;
  const std::vector<Member> members = BaselineOf(all_, cluster_, report.id);
  std::vector<const CutOnNode*> on(members.size(), nullptr);
  std::vector<size_t> pos(members.size(), 0);
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].index != nullptr) on[i] = FindCut(*members[i].index, report.id, &pos[i]);
    if (on[i] != nullptr && on[i]->has_start && (report.start_ts == 0 || on[i]->start_ts < report.start_ts)) {
      report.start_ts = on[i]->start_ts;
    }
  }
  const bool over = IsOver(members, on, last_start);
  std::vector<std::string> lacking;
  const bool all_records = FillRows(members, on, report, &lacking, notes);
  const bool untrusted = CheckMembersReadable(members, on, cluster_, over, report, notes);
  AddLocalProblems(members, on, report);
  if (!all_records || untrusted) {
    if (report.status != CutStatus::kUnverifiable) {
      report.status = over ? CutStatus::kInconsistent : CutStatus::kIncomplete;
      std::string why;
      for (const auto& l : lacking) why += (why.empty() ? "" : "; ") + l;
      report.reason = why;
    }
    return;  // a cut without all its records is not checked further: it cannot be restored
  }
  std::vector<const NodeIndex*> nodes;
  for (const auto& m : members) nodes.push_back(m.index);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (on[i]->base != report.base) {
      report.violations.push_back(
          {Kind::kBaseMismatch,
           std::nullopt,
           {nodes[i]->node},
           fmt::format("increment of \"{}\" here but of \"{}\" on {}", on[i]->base, report.base, nodes[0]->node)});
    }
  }
  JoinCut(nodes, on, report, join_);
  participants_.Check(nodes, on, pos, join_, report);
  CheckCopies(nodes, on, report);
  report.copies_compared = std::all_of(on.begin(), on.end(), [](const CutOnNode* c) { return c->applied.known; });
  if (!report.violations.empty()) {
    report.status = report.status == CutStatus::kUnverifiable ? report.status : CutStatus::kInconsistent;
    if (report.reason.empty()) {
      report.reason =
          fmt::format("{} violation(s), first: {}", report.violations.size(), KindName(report.violations[0].kind));
    }
  }
}

// Releases what only the check of this cut needed, on every node.
void Release(std::vector<NodeIndex>& views, const wal::Uuid& id, bool keep_sets) {
  for (auto& v : views) {
    for (auto it = v.cuts.rbegin(); it != v.cuts.rend(); ++it) {  // it is near the end (FindCut)
      CutOnNode& c = *it;
      if (c.id != id) continue;
      std::vector<TxSide>().swap(c.txs);
      std::vector<TxParticipants>().swap(c.participants);
      std::vector<uint16_t>().swap(c.participant_nodes);
      c.applied = AppliedCounters();
      if (!keep_sets) {
        std::vector<wal::TxId>().swap(c.before);
        std::vector<wal::TxId>().swap(c.after);
      }
      std::vector<LocalProblem>().swap(c.problems);
      break;  // ids are unique on a node
    }
  }
}

// Keeps of the cut `id`, the last consistent cut of its base, what the nesting check of
// the next one needs: its Before transactions (NestingCheck reads no others, and the
// participant rule only the cut it checks), about half of its window.
void KeepForNesting(std::vector<NodeIndex>& views, const wal::Uuid& id) {
  for (auto& v : views) {
    for (auto it = v.cuts.rbegin(); it != v.cuts.rend(); ++it) {
      CutOnNode& c = *it;
      if (c.id != id) continue;
      std::erase_if(c.txs, [](const TxSide& t) { return t.side != Side::kBefore; });
      c.txs.shrink_to_fit();
      std::vector<TxParticipants>().swap(c.participants);  // they index the whole txs
      std::vector<uint16_t>().swap(c.participant_nodes);
      break;
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
      const bool given =
          std::any_of(views.begin(), views.end(), [&](const NodeIndex& v) { return v.node == node.name; });
      if (!given)
        out.push_back({node.name, Kind::kNotGiven, "a server of the cluster file, but no WAL was given for it"});
    }
  }
  for (const auto& v : views) {
    Member m{v.node, &v, cluster != nullptr ? cluster->FindNode(v.node) : nullptr};
    if (auto why = Untrusted(m, cluster)) {
      out.push_back({v.node, why->first, why->second});
    } else if (!v.read_errors.empty()) {
      out.push_back({v.node, Kind::kReadErrors,
                     v.read_errors.size() == 1
                         ? v.read_errors[0]
                         : fmt::format("{} (and {} more)", v.read_errors[0], v.read_errors.size() - 1)});
    }
  }
  return out;
}

// The feeds of a cluster in node order, each one cut ahead: the next cut to check is the
// earliest of their heads.
class FeedSet {
 public:
  // Reads each feed's first cut (or end): that tells its node's order, the cluster
  // file's when there is one (a node whose WAL cannot be read has no order of its own).
  FeedSet(std::vector<std::unique_ptr<CutFeed>> given, const ClusterInfo* cluster, std::vector<NodeIndex>* views);
  size_t size() const { return feeds_.size(); }
  // The id of the next cut, or false when every feed has ended.
  bool NextCut(wal::Uuid* id);
  // Moves the heads of cut `id` into the views, and brings each view's reading up to date.
  void Take(const wal::Uuid& id, std::vector<uint64_t>* last_start);
  CutFeed& feed(size_t i) { return *feeds_[i]; }

 private:
  std::vector<std::unique_ptr<CutFeed>> feeds_;
  std::vector<std::optional<CutOnNode>> head_;
  std::vector<bool> ended_;
  std::vector<NodeIndex>& views_;
};

FeedSet::FeedSet(std::vector<std::unique_ptr<CutFeed>> given, const ClusterInfo* cluster, std::vector<NodeIndex>* views)
    : views_(*views) {
  const size_t n = given.size();
  std::vector<std::optional<CutOnNode>> head(n);
  std::vector<NodeIndex> progress(n);
  std::vector<size_t> rank(n), perm(n);
  for (size_t i = 0; i < n; ++i) {
    CutOnNode c;
    if (given[i]->Next(&c)) head[i] = std::move(c);
    progress[i] = given[i]->Progress();
    rank[i] = progress[i].order;
    const ClusterNode* info = cluster != nullptr ? cluster->FindNode(progress[i].node) : nullptr;
    if (info != nullptr) rank[i] = info->order;
    perm[i] = i;
  }
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  views_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    feeds_.push_back(std::move(given[perm[k]]));
    ended_.push_back(!head[perm[k]].has_value());
    head_.push_back(std::move(head[perm[k]]));
    views_[k] = std::move(progress[perm[k]]);
  }
}

bool FeedSet::NextCut(wal::Uuid* id) {
  size_t best = feeds_.size();
  // A cut without a Start record here goes by its Finish record's time.
  auto key = [&](size_t k) { return head_[k]->has_start ? head_[k]->start_ts : head_[k]->finish_ts; };
  for (size_t i = 0; i < feeds_.size(); ++i) {
    if (!head_[i] && !ended_[i]) {
      CutOnNode c;
      if (feeds_[i]->Next(&c)) {
        head_[i] = std::move(c);
      } else {
        ended_[i] = true;
      }
    }
    if (head_[i] && (best == feeds_.size() || key(i) < key(best))) best = i;
  }
  if (best == feeds_.size()) return false;
  *id = head_[best]->id;
  return true;
}

void FeedSet::Take(const wal::Uuid& id, std::vector<uint64_t>* last_start) {
  for (size_t i = 0; i < feeds_.size(); ++i) {
    if (head_[i] && head_[i]->id == id) {
      views_[i].cuts.push_back(std::move(*head_[i]));
      head_[i].reset();
    }
    views_[i].snapshots = feeds_[i]->Snapshots();
    (*last_start)[i] = feeds_[i]->LastStartTs();
    const NodeIndex p = feeds_[i]->Progress();
    views_[i].records = p.records;
    views_[i].begin = p.begin;
    views_[i].end = p.end;
    views_[i].last_ts = p.last_ts;
  }
}

}  // namespace

StreamedCluster CheckClusterStreaming(std::vector<std::unique_ptr<CutFeed>> given, const ClusterInfo* cluster,
                                      const std::vector<NodeKept>* kept, bool keep_sets) {
  StreamedCluster out;
  std::vector<NodeIndex>& views = out.nodes;
  FeedSet feeds(std::move(given), cluster, &views);
  const size_t n = feeds.size();
  std::vector<const NodeIndex*> ptrs;
  for (const auto& v : views) ptrs.push_back(&v);
  CutChecker checker(ptrs, cluster);
  std::vector<uint64_t> last_start(n, 0);
  std::vector<std::tuple<size_t, size_t, const NodeIndex*>> end_notes;  // cut, violation, node
  std::map<std::string, size_t> last;  // base -> its last consistent cut, kept for nesting
  std::map<std::string, uint32_t> increments;
  std::map<std::string, CutJoin> last_join;  // base -> the join of its last consistent cut
  wal::Uuid id;
  while (feeds.NextCut(&id)) {
    feeds.Take(id, &last_start);
    CutReport r;
    r.id = id;
    EndNotes notes;
    checker.Check(last_start, r, &notes);
    for (const auto& [v, node] : notes) end_notes.emplace_back(out.report.cuts.size(), v, node);
    // Each consistent cut against the last consistent cut of the same base.
    auto it = last.find(r.base);
    if (it != last.end()) checker.CheckNesting(out.report.cuts[it->second], r, last_join[r.base]);
    const bool consistent = r.status == CutStatus::kConsistent;
    if (consistent && !r.base.empty()) r.increment = ++increments[r.base];
    out.report.cuts.push_back(std::move(r));
    const size_t index = out.report.cuts.size() - 1;
    if (consistent) {
      if (it != last.end()) Release(views, out.report.cuts[it->second].id, keep_sets);
      last[out.report.cuts[index].base] = index;
      KeepForNesting(views, id);
      std::swap(last_join[out.report.cuts[index].base], checker.join());  // the old one goes back to the checker
      KeepBeforeOnly(last_join[out.report.cuts[index].base]);
    } else {
      Release(views, id, keep_sets);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    NodeIndex final_progress = feeds.feed(i).Progress();
    final_progress.cuts = std::move(views[i].cuts);
    views[i] = std::move(final_progress);
  }
  for (const auto& [c, v, node] : end_notes) {
    out.report.cuts[c].violations[v].detail += fmt::format(" (WAL read up to {})", node->end.ToString());
  }
  out.report.problems = NodeProblems(views, cluster);
  out.report.nodes = views.size();
  out.report.membership_known = cluster != nullptr;
  if (kept != nullptr) {
    for (const auto& k : *kept) out.report.membership_known |= !k.baseline.empty();
    std::vector<std::string> order;
    for (const auto& v : views) order.push_back(v.node);
    ApplyKeptIncrements(*kept, order, &out.report);
  }
  return out;
}

ClusterReport CheckCluster(const std::vector<NodeIndex>& indexes, const ClusterInfo* cluster,
                           const std::vector<NodeKept>* kept) {
  std::vector<std::unique_ptr<CutFeed>> feeds;
  for (const auto& index : indexes) feeds.push_back(IndexFeed(index));
  return CheckClusterStreaming(std::move(feeds), cluster, kept).report;
}

bool StopsEarly(const StreamedCluster& checked, const wal::Uuid& cut) {
  for (const auto& n : checked.nodes) {
    if (!n.read_errors.empty() || !n.open_error.empty()) return false;
  }
  for (const auto& c : checked.report.cuts) {
    if (c.id == cut) {
      return c.status == CutStatus::kConsistent && c.copies_compared && c.participants_counted &&
             c.short_of_participants == 0;
    }
  }
  return false;
}

}  // namespace cut
