// The cluster check: from the per-node cut indexes (read from the WALs, or from summary
// files written on the nodes), prove each cut consistent or explain why it is not.
//
// Who must take part in a cut (its baseline): with a cluster file, the servers that were
// members of the cluster at the cut's topology version; without one, every node given.
// A baseline node whose WAL cannot be read, was written by another node, or does not
// reach back to the cut's base snapshot makes the cut unverifiable, never consistent.
//
// The kinds of violation, with the rule each breaks, are in violation.h.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcut/cluster_file.h"
#include "libcut/cut_feed.h"
#include "libcut/cut_index.h"
#include "libcut/violation.h"

namespace cut {

enum class CutStatus { kConsistent, kInconsistent, kIncomplete, kUnverifiable };
const char* CutStatusName(CutStatus s);

struct Violation {
  Kind kind = Kind::kMissingStart;
  std::optional<wal::TxId> xid;
  std::vector<std::string> nodes;
  std::string detail;  // records and pointers
};

struct CutNodeRow {
  std::string node;
  bool has_start = false;
  bool has_finish = false;
  wal::Pointer start, finish;
  size_t before = 0, after = 0;
};

struct CutReport {
  wal::Uuid id;
  CutStatus status = CutStatus::kConsistent;
  std::optional<uint32_t> increment;  // for consistent cuts: 1, 2, ... after their base
  std::string base;
  std::string reason;      // why not consistent, in one line
  uint64_t start_ts = 0;   // earliest Start among the nodes
  uint64_t finish_ts = 0;  // latest Finish among the nodes
  std::vector<CutNodeRow> nodes;
  std::vector<Violation> violations;
  // Apache Ignite: every node's copies were compared by the update counters its restore
  // applies (copy_check.h), each node's counters known.
  bool copies_compared = false;
  // Apache Ignite: the transactions newly Before on some node committed in the cut's
  // window on fewer of its nodes than their TX_RECORDs name as participants, counted
  // where the join keeps masks (participants_counted: at most 64 nodes). Not a violation:
  // Ignite's participant ids are not node names, and a commit can lie past the window.
  uint64_t short_of_participants = 0;
  bool participants_counted = false;
};

// A node whose WAL was not read whole and sound: it fails the check whatever the cuts.
struct NodeProblem {
  std::string node;
  Kind kind = Kind::kReadErrors;  // unreadable-wal, foreign-wal, read-errors, not-given,
                                  // unreadable-metadata
  std::string detail;
};

struct ClusterReport {
  std::vector<CutReport> cuts;
  std::vector<NodeProblem> problems;  // in node order
  // Whether the cluster's nodes are known from outside the WALs (a cluster file, a
  // snapshot's metadata), so that a node not given is a problem; otherwise the verdict
  // is about the nodes read alone, and says so.
  bool membership_known = false;
  size_t nodes = 0;  // read
};

// Whether cut `c` makes `walcut check` fail: it is unverifiable; it has a violation other
// than a missing Start or Finish record of a cut that failed (the algorithm's own verdict);
// or it is not consistent although every baseline node wrote both records, or although
// the user named it (`named`).
bool FailsCheck(const CutReport& c, bool named);

struct NodeKept;  // kept_increments.h

// `indexes`: the server nodes, in any order (they are taken in node order). `cluster`:
// the cluster file, when there is one (see the baseline above). `kept`: the increments
// the nodes keep by metadata outside their WAL (Apache Ignite's), applied to the cuts
// as ApplyKeptIncrements says; null when there is none.
ClusterReport CheckCluster(const std::vector<NodeIndex>& indexes, const ClusterInfo* cluster = nullptr,
                           const std::vector<NodeKept>* kept = nullptr);

// The same check, pulling each node's cuts from its feed in step: a cut is checked as
// soon as every node has handed over its next cut (or reached its end), and what only
// that check needed is released, so memory is bounded by a few windows per node.
// `keep_sets`: the cuts handed back keep their Finish records' sets (what a restore or
// the transaction table needs of them); their transactions go all the same.
struct StreamedCluster {
  ClusterReport report;
  std::vector<NodeIndex> nodes;  // in node order; cuts without their transactions (and sets)
};
StreamedCluster CheckClusterStreaming(std::vector<std::unique_ptr<CutFeed>> feeds, const ClusterInfo* cluster = nullptr,
                                      const std::vector<NodeKept>* kept = nullptr, bool keep_sets = false);

// Whether a check whose Apache Ignite nodes were each read only to cut `cut`'s Finish
// record (NodeIndexStream::Open's `stop`: on, until the transactions in flight at it and
// those it lists After are done) may stand for the reading of their whole WALs. What a
// node's own rules need of the cut is then read (a torn transaction, a second role's
// commit, an After write in flight). What lies further bears on the cut only as evidence
// against it: a transaction that begins on a node after its Finish record, After there,
// and is Before on another. Two things show such a transaction in what was read: it is
// committed in the window on fewer nodes than its TX_RECORD names as participants
// (short_of_participants), and its Before copy applies an update counter another copy of
// the partition lacks (copies-differ). So: the cut is consistent, every node's counters
// compared, no transaction short of its participants, and no node had a read error (those
// past the Finish record are then reported too). Otherwise the nodes are to be read to
// their end.
bool StopsEarly(const StreamedCluster& checked, const wal::Uuid& cut);

}  // namespace cut
