// Who must take part in a cut, and whether what was read of each can be trusted: the
// first steps of checking one cut (cluster_check.h states the rules).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcut/cluster_check.h"

namespace cut {

// A baseline node of one cut: what was read of it (null when nothing was given for it)
// and its entry in the cluster file (null without one).
struct Member {
  std::string name;
  const NodeIndex* index = nullptr;
  const ClusterNode* info = nullptr;
};

// Violations whose detail must end with where a node's WAL ends, to be completed when
// the reading is over: (violation index in the cut's report, node).
using EndNotes = std::vector<std::pair<size_t, const NodeIndex*>>;

// The cut's baseline. Its topology version is the one its Start records carry; a cut
// with no Start record anywhere is taken at the latest version.
std::vector<Member> BaselineOf(const std::vector<const NodeIndex*>& all, const ClusterInfo* cluster,
                               const wal::Uuid& id);

// Why nothing read of member `m` can be trusted (unreadable-wal, foreign-wal), with a
// detail; nothing when its WAL was read and is its own.
std::optional<std::pair<Kind, std::string>> Untrusted(const Member& m, const ClusterInfo* cluster);

// The cut's row for each member (`on[i]`: member i's cut, or null), its finish time
// and base, and the violations of members that lack records, with a line for each in
// `lacking`. Returns whether every member has both records.
bool FillRows(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on, CutReport& report,
              std::vector<std::string>* lacking, EndNotes* end_notes);

// Marks the cut unverifiable for every member whose reading cannot be trusted for it;
// `over`: the cut is over (see CheckCut). Returns whether some member's WAL as a whole
// cannot be trusted (the cut is checked no further).
bool CheckMembersReadable(const std::vector<Member>& members, const std::vector<const CutOnNode*>& on,
                          const ClusterInfo* cluster, bool over, CutReport& report, EndNotes* end_notes);

}  // namespace cut
