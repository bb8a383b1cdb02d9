// Retention of a cluster's WAL (`walcut prune`): which sealed segment files no kept
// increment still needs, and their removal (or move), oldest first, so that what is left
// is always a whole WAL from some segment on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace app {

// Which cuts are kept: at most one rule; none keeps every restorable cut.
struct RetentionPolicy {
  std::optional<uint32_t> keep_increments;  // the N latest restorable cuts, and every cut after
  std::string keep_base;                    // the cuts of this base, and every cut after
  std::optional<size_t> first_kept;         // this cut of the report (`prune --before`), and every cut after
};

// A segment file the prune would remove.
struct Doomed {
  wal::SegmentFile file;
  uint64_t bytes = 0;
};

struct NodePrune {
  std::string node;
  wal::WalLocation wal;
  std::optional<uint64_t> keep_from;  // the first segment kept (none: the WAL has no segment)
  std::string why;                    // what keeps that segment
  std::vector<Doomed> files;          // oldest first
  uint64_t bytes = 0;
};

// One cut of the report, as the prune sees it.
struct CutFate {
  size_t index = 0;  // in report.cuts
  bool kept = false;
  bool restorable = false;  // now: its base and every segment of its range present
  std::string not_restorable;
  bool restorable_after = false;
  std::vector<std::pair<std::string, uint64_t>> from;  // per node: the segment its range begins at
};

struct PrunePlan {
  std::vector<CutFate> fates;  // one per cut of the report
  std::vector<NodePrune> nodes;
  bool any_now = false, any_after = false;  // some cut restorable now, and after the prune
  std::optional<size_t> newest_lost;        // the latest cut the prune makes unrestorable (in fates)
};

// "cut ID" and, for an increment, " (increment K of "BASE")".
std::string CutName(const cut::CutReport& c);

// The plan for the cuts found in `dir` (a cluster directory, or Apache Ignite's nodes when
// `ignite`: only their archive folders' files are counted). kInvalidArgument for a policy
// naming a base no WAL holds; kIoError naming the node whose WAL cannot be listed.
wal::Result<PrunePlan> PlanPrune(const RetentionPolicy& policy, const std::string& dir, const WalInputs& inputs,
                                 const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report,
                                 bool ignite);

// Removes each node's files of `plan`, or moves them into MOVE_TO/<node>/ when `move_to`
// is given, oldest first, fsyncing the directory after each (a file system may otherwise
// keep a later removal and lose an earlier one): a crash leaves every WAL whole from some
// segment on, and the next run goes on. `stop` is polled between files (kCancelled);
// `before_each` is called before each removal. *done counts the files removed or moved.
wal::Status ApplyPrune(const PrunePlan& plan, const std::string& move_to, const std::atomic<bool>* stop,
                       const std::function<void()>& before_each, uint64_t* done);

// What `prune DIR` with no policy (every restorable cut kept) would remove, of the cuts
// found in `dir`: none where prune does not apply (not a cluster directory or Apache
// Ignite's work directories), or where a WAL cannot be listed.
struct PruneEstimate {
  uint64_t files = 0, bytes = 0;
  bool leaves_restorable = true;  // every restorable cut stays so
};
std::optional<PruneEstimate> EstimatePrune(const std::string& dir, const WalInputs& inputs,
                                           const std::vector<cut::NodeIndex>& indexes,
                                           const cut::ClusterReport& report);

}  // namespace app
