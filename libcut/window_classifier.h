// Classifying a cut's window on one node: each commit of the window gets its side of the
// cut (side.h), and every check one node's WAL allows is made on the way (the Finish
// record's sets against the commits, a transaction's commits on one side, the per-key
// order of Before and After writes). The tables are kept from one cut to the next.
#pragma once

#include "libcut/commit_window.h"
#include "libcut/cut_index.h"
#include "libcut/id_index.h"
#include "libcut/id_set.h"
#include "libcut/order_tables.h"

namespace cut {

class WindowClassifier {
 public:
  // Fills c.txs, c.participants and c.problems from the commits of `w` in [lo, hi),
  // for a cut that has both its Start and its Finish record here. `base_at`: where the
  // cut's base snapshot record is on this node, if it was read.
  //
  // The participant rule (cut_join.h) holds each transaction newly Before at this cut to
  // its participants, so c.participants has those with a participant named: Before, and
  // committed since the previous cut's Start (lo) and not Before that cut — as this
  // classifier placed it last — or, for the first cut after its base, committed since the
  // base record (a consistent point: no transaction in flight). Where neither is known
  // (the previous cut was not classified here), those committed after the Start record.
  void Classify(CutOnNode& c, const CommitWindow& w, const wal::Pointer& lo, const wal::Pointer& hi,
                const wal::Pointer* base_at = nullptr);
  // Apache Ignite's habits with the Finish record's sets, both harmless to the cut:
  // - after (excluded) set: Ignite lists a transaction once its finish on the node
  //   completes, and a second role of it there (a backup of another partition) may log
  //   its COMMITTED record after the Finish record. Such a commit is After, as the set
  //   says, and not listed-after-finish.
  // - before (included) set: Ignite also includes the transactions that committed since
  //   the cut began on the node (it watches commits from then on and logs the Start
  //   record after); the COMMITTED record of such a transaction may precede the Start
  //   record. It is Before either way, and not before-outside-range.
  // (FormatRules::finish_sets_watch_commits.)
  void set_finish_sets_watch_commits(bool on) { watch_commits_ = on; }
  bool finish_sets_watch_commits() const { return watch_commits_; }

  // The last cut classified, for a reading resumed later (index_state.cc).
  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  bool watch_commits_ = false;
  // The last cut classified: its records and its Finish record's sets.
  struct Last {
    bool valid = false;
    wal::Pointer start, finish;
  };
  Last last_;
  IdSet last_before_, last_after_;
  // Commits from index `from` on carry their participants when Before and (`not_before_last`)
  // not Before the last cut.
  size_t participants_from_ = 0;
  bool not_before_last_ = false;
  // The window's commits: [first, end) of the CommitWindow, split by the Start and the
  // Finish record into those before Start, between, and after Finish.
  struct Bounds {
    size_t first = 0, start = 0, finish = 0, end = 0;
  };
  // finish-before-start, duplicate-entry, both-sets; loads before_ and after_.
  void CheckSets(CutOnNode& c);
  // `hash`: w[i].hash(), which the caller has at hand.
  Side SideAt(const CommitWindow& w, const Bounds& b, size_t i, uint64_t hash) const;
  // Whether commit `i`, Before this cut, is newly Before (see Classify).
  bool NewlyBefore(const CommitWindow& w, size_t i, uint64_t hash) const;
  void ClassifyCommits(CutOnNode& c, const CommitWindow& w, const Bounds& b);
  void CheckListed(CutOnNode& c);
  void CheckKeyOrder(CutOnNode& c, const CommitWindow& w, const Bounds& b);
  void FreeLargeTables();

  IdSet before_, after_;  // the Finish record's sets
  IdIndex seen_;          // xid -> index in the cut's txs
  TxTable ranged_;        // listed Before and committed between Start and Finish
  PartitionTable partitions_;
  KeyTable keys_;
};

}  // namespace cut
