// The node side of the Consistent Cut (Lai & Yang, as Ignite's incremental snapshots
// implement it; DESIGN.md section 1). One CutManager per node, driven by events; it
// decides when to write the Start and Finish records and what the Finish record lists.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

// Deliberately broken variants of the algorithm, for showing that check and restore
// catch broken cuts. kNone is the algorithm; the others are never selected by default.
enum class InjectedBug {
  kNone,
  kNoTxCutId,       // the first committer never stamps txCutId
  kNoWrap,          // messages are never wrapped: nodes learn of a cut only by discovery
  kEarlyFinish,     // Finish is written without waiting for the watched transactions
  kIgnoreRecovery,  // a RECOVERY_FINISH transaction does not fail the cut
};
const char* InjectedBugName(InjectedBug bug);
bool ParseInjectedBug(const std::string& name, InjectedBug* out);

enum class TxOutcome { kCommitted, kRolledBack, kUnknown };

// What a node knows about one of its local transactions when it finishes.
struct TxFinish {
  wal::TxId xid;
  TxOutcome outcome = TxOutcome::kCommitted;
  wal::Uuid tx_cut_id;            // the stamp copied onto the local tx; nil if none
  uint32_t topology_version = 0;  // the version the transaction is mapped to
  bool recovery_finish = false;   // finished by transaction recovery
};

// Where a CutManager's decisions go: the node writes the records to its WAL and tells
// the initiator.
class CutListener {
 public:
  virtual ~CutListener() = default;
  virtual void WriteStart(const wal::CutStartRecord& record) = 0;
  virtual void WriteFinish(const wal::CutFinishRecord& record) = 0;
  virtual void CutFailed(const wal::Uuid& cut_id, const std::string& reason) = 0;
};

// How each watched transaction was classified, over the life of a node.
struct CutStats {
  uint64_t cuts_started = 0;
  uint64_t cuts_finished = 0;
  uint64_t cuts_failed = 0;
  uint64_t watched = 0;
  uint64_t before = 0;
  uint64_t after_by_stamp = 0;
  uint64_t after_by_topology = 0;
  uint64_t rolled_back = 0;
  uint64_t committed_in_start_step = 0;  // committed between the atomic start and Start
};

class CutManager {
 public:
  // `baseline`: a server node that owns data and writes a WAL (clients only wrap).
  // `joined_topology_version`: the version at which this node joined.
  CutManager(CutListener* listener, bool baseline, uint32_t joined_topology_version,
             InjectedBug bug = InjectedBug::kNone);

  // A cut id arrived, by discovery or on a wrapped message. Starts the local cut
  // atomically unless this id is already running or done here, or the node joined
  // after the cut's topology version; a different running cut is over (it ends here,
  // failed if it had not finished). Returns true if the cut
  // started now; a baseline node must then call WriteStartRecord() (at once, or later
  // from a background step).
  bool OnCutId(const wal::Uuid& cut_id, uint32_t topology_version);

  // The background step of the start: writes the Start record, ends the window in
  // which committing transactions join the watched set, and may finish the cut.
  void WriteStartRecord(uint64_t now);
  bool start_pending() const { return start_pending_; }

  // The id outgoing Prepare/Finish requests and responses are wrapped with: nil when no
  // cut is running here.
  wal::Uuid WrapId() const;
  uint32_t WrapTopologyVersion() const { return topology_version_; }
  // The txCutId a transaction gets when this node commits it first.
  wal::Uuid StampId() const;

  // A local transaction (one role of this node in it) prepared or finished.
  void OnTxPrepared(const wal::TxId& xid);
  void OnTxFinished(const TxFinish& finish, uint64_t now);

  // The cut fails here (a baseline node left, a WAL write failed).
  void Fail(const std::string& reason);
  // Every baseline node finished (or the cut failed): stop wrapping.
  void OnCutDone(const wal::Uuid& cut_id);

  bool running() const { return running_; }
  bool finished() const { return finished_; }
  bool failed() const { return failed_; }
  const wal::Uuid& cut_id() const { return cut_id_; }
  const CutStats& stats() const { return stats_; }
  InjectedBug bug() const { return bug_; }

 private:
  void Classify(const TxFinish& f, bool list_before);
  void MaybeFinish(uint64_t now);

  CutListener* listener_;
  bool baseline_;
  uint32_t joined_topology_version_;
  InjectedBug bug_;

  bool running_ = false;        // between the atomic start and OnCutDone
  bool start_pending_ = false;  // atomic start done, Start record not yet written
  bool finished_ = false;
  bool failed_ = false;
  wal::Uuid cut_id_;
  uint32_t topology_version_ = 0;
  std::unordered_set<wal::Uuid, wal::UuidHash> done_;  // cuts seen to the end here

  // Local transactions in flight (prepared, not finished): roles per transaction.
  std::unordered_map<wal::TxId, uint32_t, wal::TxIdHash> in_flight_;
  // Watched transactions not yet classified, with what their finished roles said.
  struct Watch {
    bool any_recovery = false;
    bool any_unknown = false;
    bool any_committed = false;
    bool in_start_step = false;  // a role committed before the Start record
    bool after_start = false;    // a role committed after it
  };
  std::unordered_map<wal::TxId, Watch, wal::TxIdHash> watched_;
  std::vector<wal::TxId> before_;
  std::vector<wal::TxId> after_;
  CutStats stats_;
};

}  // namespace cut
