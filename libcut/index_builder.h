// The reading behind the cut index (cut_index.h): fed a node's records and the reader's
// issues in WAL order, it fills the node's index and hands over each cut, classified,
// once its window is complete. Memory follows the open windows (commit_window.h).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libcut/commit_place.h"
#include "libcut/commit_window.h"
#include "libcut/cut_index.h"
#include "libcut/tx_order.h"
#include "libcut/window_classifier.h"
#include "libwal/segment_format.h"
#include "libwal/wal_reader.h"

namespace cut {

class VarintWriter;
class VarintReader;

class IndexBuilder {
 public:
  // Cuts whose window is complete go to `ready`, in WAL order.
  IndexBuilder(NodeIndex* index, std::deque<CutOnNode>* ready) : index_(index), ready_(ready) {}
  IndexBuilder(const IndexBuilder&) = delete;  // by_id_ and open_starts_ point into states_
  IndexBuilder& operator=(const IndexBuilder&) = delete;
  uint64_t last_start_ts() const { return last_start_ts_; }
  // The reader the records come from (for the file of an out-of-order record).
  void set_reader(const wal::WalReader* reader) { reader_ = reader; }

  void OnRecord(const wal::Record& r);
  void OnIssue(const wal::Issue& issue);
  // The reading may stop early (StopReached) once cut `id`'s Finish record is read, each
  // transaction that record lists After has been committed here (Apache Ignite logs a
  // second role's COMMITTED record of one after the Finish record: window_classifier.h),
  // and each transaction in flight here at the Finish record (a role prepared, or writes
  // held, and no final record yet) has reached its final record: what the checks of this
  // node's records need of the cut (a torn transaction is seen at its commit). Not kept
  // by Save.
  void StopAfterFinishOf(const wal::Uuid& id) { stop_id_ = id; }
  bool StopReached() const { return stop_armed_ && stop_pending_.empty() && stop_open_.empty(); }
  // The end of the WAL, just past its last sound record: every cut still open is handed over.
  void Finish(wal::Pointer end);

  // The state between two records, with the index read so far (but its cuts handed
  // over), for a reading resumed later at the next segment file (cut_index.h).
  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  // A cut not yet handed over.
  struct CutState {
    CutOnNode cut;
    bool finalized = false;
    bool has_next_start = false;
    wal::Pointer next_start;
    wal::Pointer window_begin;  // the previous cut's Start, or the beginning
    // Apache Ignite's WAL: the transactions committed with entries on both sides of the
    // Start record, with the commit's place: torn unless the Finish record lists them
    // (CheckTorn).
    std::vector<std::pair<wal::TxId, wal::Pointer>> straddling;
  };

  void OnData(const wal::Record& r);
  void OnTx(const wal::Record& r);
  void OnStart(const wal::Record& r);
  void OnFinish(const wal::Record& r);
  void Stamp(uint64_t ts) { index_->last_ts = std::max(index_->last_ts, ts); }
  // A snapshot or cut record's time: its own, or where its format's carry none, the latest
  // of the node's records before it.
  uint64_t TimeOf(const wal::Record& r, uint64_t own) const {
    return own != 0 || !wal::RulesOf(r.format).cut_records_untimed ? own : index_->last_ts;
  }
  void AddError(wal::Pointer at, std::string text);
  void OutOfOrder(const wal::Record& r, const std::string& why);
  CutState* Find(const wal::Uuid& id);
  CutState* Open(const wal::Uuid& id);
  bool Stray(const wal::Record& r, const wal::Uuid& id, const char* what);
  void Emit();
  void Trim();
  void Finalize(CutState& s);
  void OnIgniteCommit(const wal::TxId& x, const wal::Pointer& at, const CommitPlacer::Entries& e);
  void CheckTorn(CutState& s);

  NodeIndex* index_;
  std::deque<CutOnNode>* ready_;
  const wal::WalReader* reader_ = nullptr;
  TxOrder order_;
  uint64_t last_segment_ = 0;
  uint64_t last_start_ts_ = 0;
  wal::Pointer last_start_{};
  std::unordered_set<wal::Uuid, wal::UuidHash> emitted_;  // ids of the cuts handed over
  std::vector<std::pair<wal::Pointer, std::string>> errors_;
  CommitWindow window_;
  CommitPlacer placer_;       // Apache Ignite's WALs only
  CounterFollower counters_;  // Apache Ignite's WALs only
  // Filled by each DATA record's entries in turn: made once (a DataEntry is zeroed
  // when made, which costs more than its reading).
  wal::DataEntry entry_;
  WindowClassifier classifier_;
  // The cuts not yet handed over, in the order they were opened (a deque: a state stays
  // where it is while others come and go), found by id; those started and not finalized
  // by their Start record's place (Apache Ignite's commits are placed against them).
  std::deque<CutState> states_;
  std::unordered_map<wal::Uuid, CutState*, wal::UuidHash> by_id_;
  std::map<wal::Pointer, CutState*> open_starts_;
  // StopAfterFinishOf: the cut, whether its Finish record is read, and what it lists
  // After that is not committed yet.
  std::optional<wal::Uuid> stop_id_;
  bool stop_armed_ = false;
  std::unordered_set<wal::TxId, wal::TxIdHash> stop_pending_;
  std::unordered_set<wal::TxId, wal::TxIdHash> stop_open_;  // in flight at the Finish record
};

}  // namespace cut
