// `walcut txs`: a transaction's side of every cut on a node, as its table prints them
// (text and JSON), from the node's cut records and sets.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "libcut/cluster_check.h"
#include "libcut/side.h"
#include "libwal/ids.h"

namespace tools {

// A cut with both records on a node, with its sets sorted for the side rule.
struct NodeCut {
  std::string id;  // in full
  // Its sides as a text line ends them (" <short id>=Before") and as JSON members
  // (`,"<id>":"before"`), by Side.
  std::array<std::string, 2> text, json;
  wal::Pointer start, finish;
  std::vector<wal::TxId> before, after;

  // The cut of `id` with these records and sets (sorted here), its texts made.
  NodeCut(std::string id, const wal::Pointer& start, const wal::Pointer& finish, std::vector<wal::TxId> before,
          std::vector<wal::TxId> after);
};

// The side rule (libcut/side.h) for a transaction whose first commit on the node is at
// `commit`.
cut::Side SideOf(const NodeCut& c, const wal::TxId& xid, const wal::Pointer& commit);

// A node's cuts (those of the report, in its order, with both records there) and their
// sides as text and as JSON members. When the cuts follow one another in the WAL (starts
// in order, finishes in order, each start at or before its finish) a commit is After
// every cut finished at or before it, Before every cut started after it unless one of
// those lists it After, and between the records of the others: a line's sides are then a
// run of After texts, the rule for the cuts it falls between, and a run of Before texts,
// found by two binary searches and one lookup instead of the rule for every cut. When
// they do not, the rule is asked for every cut.
class NodeSides {
 public:
  explicit NodeSides(std::vector<NodeCut> cuts);

  const std::vector<NodeCut>& cuts() const { return cuts_; }
  // Whether the runs are used (the cuts follow one another).
  bool ordered() const { return ordered_; }

  // append(text) with the transaction's side of every cut, in order, its first commit
  // on the node being `commit`: text (" <short id>=Before"...) or, with `as_json`, JSON
  // members each preceded by a comma.
  template <typename Append>
  void AppendSides(const wal::TxId& xid, const wal::Pointer& commit, bool as_json, Append&& append) const;

 private:
  struct Runs {
    std::string afters, befores;                    // every cut's After text, Before text, in order
    std::vector<size_t> afters_end, befores_begin;  // cut k's end in afters, beginning in befores
  };

  std::vector<NodeCut> cuts_;
  bool ordered_ = false;
  std::vector<wal::Pointer> starts_, finishes_;  // by cut, when ordered
  Runs text_, json_;
  std::vector<wal::TxId> listed_after_;  // in any cut's After set, sorted
};

// Per node (as `indexes`), the cuts of the report, in its order, that have both records
// there.
std::vector<NodeSides> SidesByNode(const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report);

template <typename Append>
void NodeSides::AppendSides(const wal::TxId& xid, const wal::Pointer& commit, bool as_json, Append&& append) const {
  auto one = [&](const NodeCut& c) {
    append((as_json ? c.json : c.text)[static_cast<size_t>(SideOf(c, xid, commit))]);
  };
  if (!ordered_) {
    for (const auto& c : cuts_) one(c);
    return;
  }
  const Runs& runs = as_json ? json_ : text_;
  // Cuts [0, a) finished at or before the commit, [b, n) start after it; a <= b, as
  // each cut starts at or before its finish.
  const auto a = static_cast<size_t>(std::upper_bound(finishes_.begin(), finishes_.end(), commit) - finishes_.begin());
  const auto b = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), commit) - starts_.begin());
  if (a != 0) append(std::string_view(runs.afters).substr(0, runs.afters_end[a - 1]));
  for (size_t k = a; k < b; ++k) one(cuts_[k]);
  if (b == cuts_.size()) return;
  if (!std::binary_search(listed_after_.begin(), listed_after_.end(), xid)) {
    append(std::string_view(runs.befores).substr(runs.befores_begin[b]));
    return;
  }
  for (size_t k = b; k < cuts_.size(); ++k) one(cuts_[k]);
}

}  // namespace tools
