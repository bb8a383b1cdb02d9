// The cross-node rules of one cut: the window transactions of all its baseline nodes
// joined by id (every transaction on the same side everywhere), and the participant
// rule that needs them (a Before transaction in flight at the Start is committed on
// every participant). The join is kept for the nesting of the next cut.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "libcut/chunked.h"
#include "libcut/cluster_check.h"
#include "libcut/id_index.h"

namespace cut {

struct CutJoin {
  struct Seen {
    wal::TxId xid;
    uint64_t nodes;            // the nodes that committed it, when `masked`
    uint64_t after;            // those that have it After, when `masked`
    uint32_t node;             // the first node that has it, by index in `nodes`
    uint32_t tx;               // its index in that node's CutOnNode::txs (for messages; a kept
                               // join's are stale: KeepForNesting thins the cut's txs)
    Side side;                 // there
    uint8_t participants = 0;  // the most TxSide::participants among its nodes
  };
  bool valid = false;   // built for the cut checked last
  bool masked = false;  // at most 64 nodes: the masks are kept
  std::vector<const NodeIndex*> nodes;
  IdIndex first;  // xid -> index in `seen`
  // One entry per distinct transaction (a window's commits are several per transaction):
  // grown by chunks, never reserved for every commit nor copied as it grows.
  Chunked<Seen> seen;

  // The entry of `x`, or nullptr.
  const Seen* Find(const wal::TxId& x) const {
    const uint32_t k = first.Find(x, [this](uint32_t i) -> const wal::TxId& { return seen[i].xid; });
    return k == UINT32_MAX ? nullptr : &seen[k];
  }
};

// Thins the join of the last consistent cut, kept for the nesting check of the next one,
// to what that check asks of it (NestingMayFail): the transactions Before on some node.
// Only for masked joins (an unmasked one is not asked).
void KeepBeforeOnly(CutJoin& j);

// Builds `j` over the nodes' cuts `on` (each with both records), reporting every
// side-mismatch into `report`.
void JoinCut(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on, CutReport& report,
             CutJoin& j);

// The participant rule (before-missing-on-participant), over a join JoinCut built: a
// transaction newly Before at a cut on one node (window_classifier.h) is committed in the
// cut's window on each participant. A restore replays it on every node that has it
// Before, so one participant without it leaves copies that disagree, at this cut and at
// every later cut of the same base until that participant commits it: the violation is
// carried to them. `pos[i]`: the position of the cut in node i's cuts. Keeps its tables
// between cuts; the cuts come in order.
class ParticipantCheck {
 public:
  void Check(const std::vector<const NodeIndex*>& nodes, const std::vector<const CutOnNode*>& on,
             const std::vector<size_t>& pos, const CutJoin& j, CutReport& report);

 private:
  // Whether `x` was committed in the window of the cut on node `o`, or listed After the
  // cut before it there (committed before that cut's Start, in flight at it).
  bool CommittedOn(const wal::TxId& x, size_t o, const std::vector<const NodeIndex*>& nodes,
                   const std::vector<const CutOnNode*>& on, const std::vector<size_t>& pos, const CutJoin& j);

  std::vector<TxTable> windows_;  // without masks: each node's window, built when needed
  // A transaction a participant has not committed, as of the last cut checked.
  struct Missing {
    wal::TxId xid;
    std::string on, participant;  // node names
    std::string base;
    std::string detail;  // of the cut it was found at
  };
  std::vector<Missing> missing_;
  // The transactions of the last cut checked that had a side-mismatch: one may be newly
  // Before here on one node and have been Before that cut on another, committed before
  // this cut's window there. That cut is not consistent; this one may be.
  std::unordered_set<wal::TxId, wal::TxIdHash> mismatched_;
  // Each node's After set of the last cut checked (a released cut's sets are gone).
  struct LastAfter {
    wal::Uuid cut;
    std::vector<wal::TxId> after;
  };
  std::map<std::string, LastAfter> last_after_;
};

}  // namespace cut
