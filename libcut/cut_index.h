// The per-node cut index: one pass over a node's WAL finds every base snapshot, every
// cut's Start and Finish, and, for each cut, the side of each transaction this node
// committed near it. Memory is bounded by the transactions committed between the
// previous cut's Start and the next cut's Start (the window the checks need), not by the
// length of the log.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libcut/copy_counters.h"
#include "libcut/hash.h"
#include "libcut/side.h"
#include "libcut/violation.h"
#include "libwal/ids.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"
#include "libwal/wal_reader.h"

namespace cut {

// One committed transaction seen in a cut's window on this node.
// 32 bytes: the pointer's two fields lie apart so that the side and the participants
// fill what would be its padding (a window holds many of these).
struct TxSide {
  wal::TxId xid;
  uint64_t commit_segment = 0;  // its COMMITTED TxRecord (commit())
  uint32_t commit_offset = 0;
  Side side = Side::kAfter;
  // Apache Ignite: for a transaction newly Before at this cut (window_classifier.h), how
  // many nodes its TX_RECORD names as participants (0: not known; 255: every node, as
  // Commit::ignite_participants says). Not in summaries.
  uint8_t participants = 0;

  wal::Pointer commit() const { return {commit_segment, commit_offset}; }
  void set_commit(const wal::Pointer& p) {
    commit_segment = p.segment;
    commit_offset = p.offset;
  }
  // For the cluster join; computed, not kept.
  uint64_t hash() const { return HashTxId(xid); }
};
static_assert(sizeof(TxSide) == 32);

// The participants of a window transaction (by index in CutOnNode::txs): node orders of
// primaries and backups, sorted, at [first, first + count) of CutOnNode::participant_nodes
// (one array for the cut: most of a window's transactions carry them).
struct TxParticipants {
  uint32_t tx = 0;
  uint32_t first = 0;
  uint32_t count = 0;
};

// A problem visible from one node's WAL alone.
struct LocalProblem {
  Kind kind = Kind::kDuplicateRecord;  // one of the local kinds (violation.h)
  wal::TxId xid;                       // when it concerns a transaction
  wal::Pointer at;                     // the record it was found at
  std::string detail;
};

struct CutOnNode {
  wal::Uuid id;
  bool has_start = false;
  bool has_finish = false;
  wal::Pointer start;
  wal::Pointer finish;
  uint32_t topology_version = 0;
  uint64_t start_ts = 0;
  uint64_t finish_ts = 0;
  std::string base;               // the full snapshot this cut is an increment of
  std::vector<wal::TxId> before;  // the Finish record's sets, as written
  std::vector<wal::TxId> after;
  std::vector<TxSide> txs;  // commits of the window, classified
  // The commits (COMMITTED or UNKNOWN TX_RECORDs) before the Finish record that are on the
  // After side, all of them in the window: with the node's count of commits before the
  // Finish record, how many are Before (`cuts` counts an increment's by them). Set by the
  // classifier as the WAL is read; not carried by summaries or a reading's saved state.
  uint64_t after_by_finish = 0;
  // For the transactions newly Before at this cut (the participant rule of the cluster
  // check, window_classifier.h), in the order of txs.
  std::vector<TxParticipants> participants;
  std::vector<uint16_t> participant_nodes;
  std::vector<LocalProblem> problems;
  // A read problem (corruption, missing segment) inside the window, with its address.
  std::optional<std::string> unverifiable;
  // Apache Ignite: the update counters this node's copies apply when the increment is
  // restored (copy_counters.h), compared across nodes by the cluster check; carried by
  // summaries and a reading's saved state.
  AppliedCounters applied;
};

struct BaseSnapshot {
  std::string name;
  wal::Pointer at;
  uint64_t timestamp = 0;
};

struct NodeIndex {
  std::string node;
  wal::Uuid node_id;  // from its segment headers (nil when none was read)
  uint16_t order = 0;
  std::vector<BaseSnapshot> snapshots;
  std::vector<CutOnNode> cuts;  // in the order of their first record
  // Every error of the WAL, located: what the reader reported (corruption, missing
  // segments, ...) and records out of the order of tx_order.h.
  std::vector<std::string> read_errors;
  std::vector<wal::Pointer> read_error_at;  // where each of them is (not in summaries)
  std::string open_error;                   // set when the WAL could not be opened at all
  std::string torn_tail;                    // the torn tail its last segment ends in, if any (not an error)
  wal::Pointer begin;                       // the first record read (when records > 0)
  wal::Pointer end;                         // just past the last record read
  uint64_t last_ts = 0;                     // the latest timestamp among the records read
  uint64_t records = 0;
  // The reading stopped past a cut's Finish record, not at the WAL's end
  // (NodeIndexStream::Open's `stop`; not in summaries).
  bool stopped = false;
};

// The node orders of `p`, a participants entry of `c`.
inline std::span<const uint16_t> NodesOf(const CutOnNode& c, const TxParticipants& p) {
  return std::span<const uint16_t>(c.participant_nodes).subspan(p.first, p.count);
}
// Gives transaction `tx` of c.txs (after those given so far) the participants `nodes`.
void AddParticipants(CutOnNode& c, uint32_t tx, std::span<const uint16_t> nodes);

// Node `n`'s record of cut `id` (and its position in n.cuts), or null.
const CutOnNode* FindCut(const NodeIndex& n, const wal::Uuid& id, size_t* pos = nullptr);

// The side (side.h) of a transaction whose first commit on this node is at `commit`.
// Only meaningful for a cut with both records.
Side SideOf(const CutOnNode& cut, const wal::TxId& xid, const wal::Pointer& commit);

// Every record the index is built from, as it is read (light: TX_RECORDs and
// DATA_RECORD_V2s as views), for a reader that wants more of the WAL in the same pass.
using RecordTap = std::function<void(const wal::Record&)>;

// Reads the node WAL of `wal_dir` once. Only failure to open is an error; every problem
// inside the WAL is recorded in the index.
wal::Result<NodeIndex> BuildNodeIndex(const std::string& node, const wal::WalLocation& wal_dir,
                                      RecordTap tap = nullptr);

// The same reading, handing over each cut as soon as its window is complete (the next
// cut's Start, or the end of the WAL, has been read), in WAL order: a cluster can then be
// checked cut by cut, with memory bounded by the open windows rather than the log.
// BuildNodeIndex is this stream drained.
//
// With `checkpoint`, the reading's state is kept just before the WAL's last segment file
// (the one a live node is still writing), and Resume() goes on from there later: the
// same cuts and index as reading the whole WAL again, at the cost of the new segments
// and that one file.
struct IndexCheckpoint {
  std::string state;                    // the reading's state (index_state.cc)
  uint64_t resume_index = 0;            // the segment file reading resumes at
  std::optional<uint64_t> after_index;  // the file read just before it, if any
  std::optional<wal::Uuid> node_id;     // the node every header read so far is held to
  uint64_t cuts_before = 0;             // cuts handed over before it
};

class NodeIndexStream {
 public:
  // With `stop`, the reading ends early, as if the WAL ended there, once the Finish record
  // of cut `*stop` is read and each transaction it lists After has been committed
  // (IndexBuilder::StopAfterFinishOf): what a check of that cut alone needs of an Apache
  // Ignite node (cluster_check.h, StopsEarly). progress().stopped says so.
  static wal::Result<std::unique_ptr<NodeIndexStream>> Open(const std::string& node, const wal::WalLocation& wal_dir,
                                                            RecordTap tap = nullptr, bool checkpoint = false,
                                                            std::optional<wal::Uuid> stop = std::nullopt);
  // Goes on from `from` (a checkpoint of this node's WAL): reads the segment files from
  // its resume index on, and hands over the cuts that come after its cuts_before.
  // NotFound when the WAL no longer holds the file it resumes at.
  static wal::Result<std::unique_ptr<NodeIndexStream>> Resume(const std::string& node, const wal::WalLocation& wal_dir,
                                                              const IndexCheckpoint& from, bool checkpoint = false);
  // The checkpoint asked for, once Next() returned false (nullopt before).
  const std::optional<IndexCheckpoint>& checkpoint() const;
  ~NodeIndexStream();
  // The next cut; false once the WAL is read to its end and every cut handed over.
  bool Next(CutOnNode* out);
  // What has been read so far: node id and order, snapshots, read errors, end, records
  // (no cuts). Final once Next() returned false.
  const NodeIndex& progress() const;
  // The latest Start record's timestamp read so far (0 before any).
  uint64_t last_start_ts() const;

 private:
  NodeIndexStream();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cut
