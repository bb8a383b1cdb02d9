#include "libcut/cut_baseline.h"

#include <algorithm>

#include <fmt/format.h>

namespace cut {
namespace {

bool HasSnapshot(const NodeIndex& n, const std::string& name) {
  return std::any_of(n.snapshots.begin(), n.snapshots.end(), [&](const BaseSnapshot& s) { return s.name == name; });
}

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

const char* Lacks(const CutNodeRow& row) {
  if (!row.has_start && !row.has_finish) return "Start and Finish";
  return !row.has_start ? "Start" : "Finish";
}

}  // namespace

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

std::optional<std::pair<Kind, std::string>> Untrusted(const Member& m, const ClusterInfo* cluster) {
  if (m.index == nullptr) return std::pair{Kind::kUnreadableWal, std::string("no WAL was given for it")};
  const NodeIndex& n = *m.index;
  if (!n.open_error.empty()) return std::pair{Kind::kUnreadableWal, n.open_error};
  if (n.records == 0) {
    return std::pair{Kind::kUnreadableWal, n.read_errors.empty()
                                               ? std::string("its WAL holds no record")
                                               : "no record of its WAL could be read: " + n.read_errors[0]};
  }
  if (m.info != nullptr && (n.node_id != m.info->id || n.order != m.info->order)) {
    std::string whose;
    for (const auto& other : cluster->nodes) {
      if (other.id == n.node_id) whose = fmt::format(" ({} in the cluster file)", other.name);
    }
    return std::pair{Kind::kForeignWal,
                     fmt::format("its WAL was written by node {} with order {}{}, not by {} ({}, order {})",
                                 n.node_id.ToString(), n.order, whose, m.name, m.info->id.ToString(), m.info->order)};
  }
  return std::nullopt;
}

bool FillRows(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on, CutReport& report,
              std::vector<std::string>* lacking, EndNotes* end_notes) {
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
      lacking->push_back(fmt::format("{} lacks the {} record", row.node, Lacks(row)));
      // A Finish without its Start is reported by the node's own finish-without-start.
      if (row.has_start || !row.has_finish) {
        if (members[i].index != nullptr) end_notes->emplace_back(report.violations.size(), members[i].index);
        report.violations.push_back(
            {!row.has_start ? Kind::kMissingStart : Kind::kMissingFinish, std::nullopt, {row.node}, lacking->back()});
      }
    }
    report.nodes.push_back(row);
  }
  return all_records;
}

bool CheckMembersReadable(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                          const ClusterInfo* cluster, bool over, CutReport& report, EndNotes* end_notes) {
  auto unverifiable = [&](std::optional<Kind> kind, size_t i, std::string detail) {
    if (report.status != CutStatus::kUnverifiable) report.reason = fmt::format("{}: {}", members[i].name, detail);
    report.status = CutStatus::kUnverifiable;
    if (kind) report.violations.push_back({*kind, std::nullopt, {members[i].name}, std::move(detail)});
  };
  bool untrusted = false;
  for (size_t i = 0; i < members.size(); ++i) {
    if (auto why = Untrusted(members[i], cluster)) {
      unverifiable(why->first, i, why->second);
      untrusted = true;
      continue;
    }
    const NodeIndex& n = *members[i].index;
    if (on[i] != nullptr && on[i]->unverifiable) {
      unverifiable(std::nullopt, i, "WAL damaged in the cut's range: " + *on[i]->unverifiable);
    }
    if (!report.base.empty() && !HasSnapshot(n, report.base)) {
      unverifiable(Kind::kWalMissesBase, i,
                   fmt::format("its WAL does not reach back to the ClusterSnapshotRecord of \"{}\" (it begins at {})",
                               report.base, n.begin.ToString()));
    }
    if (on[i] == nullptr && over && report.start_ts != 0 && n.last_ts < report.start_ts) {
      std::string why = WhyLost(members[i]);
      if (!why.empty()) {
        end_notes->emplace_back(report.violations.size(), &n);
        unverifiable(Kind::kRecordsLost, i,
                     fmt::format("its WAL ends before the cut started elsewhere (its last record is of time {}, the "
                                 "first Start record of time {}), though {}",
                                 n.last_ts, report.start_ts, why));
      }
    }
  }
  return untrusted;
}

}  // namespace cut
