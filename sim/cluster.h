// The simulated cluster's state and its one class, shared by the files of sim/ (one
// concept each: cluster.cc the loop, messages.cc the network, discovery.cc topology and
// cut initiation, transactions.cc and locks.cc the protocol, workload.cc the transfers,
// roles.cc a node's records, faults.cc and tx_recovery.cc crashes and what follows,
// output.cc what is written). Internal to sim/: the rest of walcut includes simulate.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "libcut/cut_manager.h"
#include "libwal/wal_writer.h"
#include "recovery/counter_tracker.h"
#include "recovery/partition_file.h"
#include "sim/config.h"
#include "sim/rng.h"
#include "sim/simulate.h"

namespace sim {

namespace fs = std::filesystem;
using wal::Pointer;
using wal::Status;
using wal::TxId;
using wal::Uuid;

inline constexpr uint32_t kCacheId = 1;
inline constexpr uint64_t kNsPerUs = 1000;
inline constexpr uint32_t kNone = UINT32_MAX;

class Cluster;

enum class EventKind : uint8_t {
  kMessage,
  kDiscovery,    // the next discovery event reaches node `to`
  kStartRecord,  // node `to` writes the Start record of cut `cut`
  kLockTimeout,  // tx `tx` at its near node
  kNextTx,       // near node `to` starts a transaction
  kInitiateCut,  // the initiator starts a cut now (scenario schedules)
  kFault,        // fault `group` (an index into the fault list) happens now
};

struct Event {
  uint64_t time = 0;
  uint64_t seq = 0;
  EventKind kind = EventKind::kMessage;
  MsgType type = MsgType::kLockRequest;
  bool flag = false;  // commit (finish requests), committed (1PC responses)
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t tx = kNone;  // transaction slot
  uint32_t gen = 0;     // slot generation, to drop events of a finished slot
  uint32_t group = 0;
  uint32_t cut_topver = 0;
  Uuid cut;    // wrapping: the sender's running cut id
  Uuid stamp;  // txCutId on finish requests and 1PC responses
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

struct Reservation {
  uint32_t partition = 0;
  uint64_t start = 0;
  uint64_t delta = 0;
};

// What one node's role in a transaction has done.
enum RoleState : uint8_t { kRoleNone, kRolePrepared, kRoleCommitted, kRoleRolledBack };

// The keys of one transaction that share a primary.
struct Group {
  uint32_t primary = 0;
  std::vector<uint32_t> keys;     // indices into Tx::accounts
  std::vector<uint32_t> backups;  // union of the backups of the keys' partitions
  std::vector<Reservation> reservations;
  uint32_t waiting_locks = 0;  // keys whose lock queue this group is not at the head of
  bool lock_requested = false;
  bool locked = false;
  uint32_t backup_acks = 0;
  bool primary_prepared = false;
  bool primary_finished = false;
  uint8_t primary_state = kRoleNone;
  std::vector<uint8_t> backup_state;  // parallel to `backups`
};

struct Tx {
  uint32_t gen = 0;
  bool live = false;     // not yet done at the near node
  uint32_t pending = 0;  // messages in flight that refer to this slot
  TxId xid;
  uint32_t near = 0;
  uint32_t topver = 1;
  uint64_t started_at = 0;
  std::vector<uint32_t> accounts;
  std::vector<int64_t> new_balance;
  std::vector<uint8_t> existed;   // per key: the account existed when read under the lock
  std::vector<uint8_t> exists;    // per key: it exists after the transaction (0: deleted)
  std::vector<uint64_t> counter;  // per key, assigned at prepare
  std::vector<Group> groups;
  std::vector<wal::Participant> participants;
  uint32_t locks_pending = 0;
  uint32_t responses_pending = 0;
  bool one_phase = false;
  bool rolled_back = false;
  bool timed_out = false;
  bool preparing = false;
  bool freed = true;
  Uuid stamp;
  uint64_t outcome_order = 0;
  bool recovered = false;          // finished by transaction recovery: its messages are void
  uint8_t decided = 0;             // 2PC: the near node's decision, 1 commit, 2 roll back
  uint32_t unknown_group = kNone;  // the role that ends UNKNOWN (--unknown-rate)
  uint32_t unknown_node = kNone;
};

struct LockWaiter {
  uint32_t tx;
  uint32_t gen;
  uint32_t group;
};

// One partition copy on one server.
struct PartitionCopy {
  bool held = false;
  recovery::CounterTracker tracker;
};

struct Node;

class NodeCutListener : public cut::CutListener {
 public:
  NodeCutListener(Cluster* c, uint32_t node) : cluster_(c), node_(node) {}
  void WriteStart(const wal::CutStartRecord& r) override;
  void WriteFinish(const wal::CutFinishRecord& r) override;
  void CutFailed(const Uuid& cut_id, const std::string& reason) override;

 private:
  Cluster* cluster_;
  uint32_t node_;
};

struct Node {
  std::string name;
  Uuid id;
  uint16_t order = 0;
  bool server = false;
  uint32_t joined_topver = 1;
  std::unique_ptr<NodeCutListener> listener;
  std::unique_ptr<cut::CutManager> cm;
  std::unique_ptr<wal::WalWriter> wal;
  std::vector<PartitionCopy> parts;   // by partition
  std::vector<int64_t> balance;       // by account (meaningful for held partitions)
  std::vector<uint8_t> open;          // by account: 1 while it exists (a closed one is deleted)
  std::vector<uint64_t> key_counter;  // by account: counter of the write held
  uint64_t local_order = 0;           // for transaction ids started here
  uint32_t next_discovery = 0;        // index into the discovery log
  uint64_t last_discovery_at = 0;
  uint32_t seen_topver = 1;
  bool alive = true;          // not crashed
  bool joined = true;         // false for a client that joins later
  uint32_t left_topver = 0;   // the version its leave made
  Pointer last_record;        // of the WAL, for a torn tail
  Uuid last_record_finishes;  // the cut whose Finish record is last_record, if it is one
  std::vector<Event> parked;  // messages of a topology version not seen yet
};

struct DiscoveryEvent {
  enum Kind { kCutStart, kCutDone, kNodeLeft, kNodeJoined } kind;
  Uuid cut;
  uint32_t topver = 1;
  uint32_t node = kNone;  // who left or joined
};

struct TopologyVersion {
  uint32_t version = 1;
  std::string event;
  std::vector<uint32_t> servers, clients;
  std::vector<std::vector<uint32_t>> assignment;
};

struct PendingFault {
  FaultKind kind = FaultKind::kCrashServer;
  uint32_t node = kNone;
  FaultTime when;
  bool scheduled = false;  // its event is queued
  bool done = false;
};

struct CutRun {
  Uuid id;
  uint32_t topver = 1;
  uint64_t initiated_at = 0;
  uint32_t finished = 0;
  uint32_t baseline = 0;        // servers of its topology
  uint32_t finish_records = 0;  // Finish records written by them
  bool failed = false;
  std::string reason;
  bool done = false;
  std::vector<std::string> finished_nodes;
};

class Cluster {
 public:
  explicit Cluster(const SimConfig& config) : c_(config), rng_(config.seed) {}
  wal::Result<SimSummary> Run();

  // CutListener callbacks of node `n`.
  void OnWriteStart(uint32_t n, const wal::CutStartRecord& r);
  void OnWriteFinish(uint32_t n, const wal::CutFinishRecord& r);
  void OnCutFailed(uint32_t n, const Uuid& id, const std::string& reason);

 private:
  // Set-up and output.
  Status Setup();
  Status WriteBaseSnapshot();
  Status WriteSnapshot(uint32_t s, const std::string& name);
  recovery::PartitionFile PartitionFileOf(uint32_t s, uint32_t p) const;
  Status Finish();
  Status WriteClusterJson();
  void WriteTruthTx(const Tx& tx, const char* outcome);

  // The event machinery.
  void Push(Event e) {
    e.seq = seq_++;
    queue_.push(e);
  }
  uint64_t Delay(MsgType t);
  void Send(MsgType t, uint32_t from, uint32_t to, uint32_t tx, uint32_t group, bool flag, const Uuid& stamp);
  void Handle(const Event& e);
  void HandleMessage(const Event& e);
  void HandleDiscovery(uint32_t n);
  void ScheduleDiscovery(uint32_t n);
  void Broadcast(DiscoveryEvent ev);
  void OnCutIdAt(uint32_t n, const Uuid& id, uint32_t topver);

  // The transaction protocol.
  void StartTx(uint32_t near);
  uint32_t NewTx(uint32_t near);
  void ChooseAccounts(Tx& t);
  void GroupByPrimary(Tx& t);
  void OnLockRequest(const Event& e);
  void OnLockResponse(const Event& e);
  void Transfer(Tx& t);
  void OnLockRelease(const Event& e);
  void ReleaseLocks(uint32_t tx, uint32_t group);
  void GrantIfReady(uint32_t tx, uint32_t group);
  void Prepare(uint32_t tx);
  void OnNearPrepareRequest(const Event& e);
  void OnDhtPrepareRequest(const Event& e);
  void OnDhtPrepareResponse(const Event& e);
  void OnNearPrepareResponse(const Event& e);
  void OnNearFinishRequest(const Event& e);
  void OnDhtFinishRequest(const Event& e);
  void OnNearFinishResponse(const Event& e);
  void OnLockTimeout(const Event& e);
  void TxDone(uint32_t tx, bool committed);
  void MaybeStartCut();
  void InitiateCut();
  void MaybeFree(uint32_t tx);

  // Faults: crashes, joins, transaction recovery, the exchange that follows a leave.
  Status ResolveFaults();
  void ScheduleCountFaults();
  void QueueFault(uint32_t i, uint64_t at);
  void HandleFault(uint32_t i);
  void Crash(uint32_t n);
  void Join(uint32_t n);
  void Exchange();
  void RecoverTransactions(uint32_t gone);
  void FinalizeCountersOf(uint32_t gone);
  void CloseReserved(uint32_t n, uint32_t tx, uint32_t group, bool primary);
  void TakeSnapshot();
  void Resume();
  void RecordTopology(const std::string& event);
  void Unpark(uint32_t n);
  bool Blocked() const { return exchange_pending_ || quiescing_; }
  uint8_t& StateOf(Group& g, uint32_t n, bool primary);

  // Local roles: a node's part of one group (as primary, or as one of its backups).
  void LogPrepared(uint32_t n, Tx& t, Group& g, bool primary);
  void CommitRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, const Uuid& stamp, bool recovery = false);
  void RollbackRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, bool recovery = false);

  uint32_t PartitionOf(uint32_t account) const { return key_partition_[account]; }
  uint32_t PrimaryOf(uint32_t partition) const { return assignment_[partition][0]; }
  bool IsBackupOf(uint32_t n, uint32_t partition) const {
    const auto& a = assignment_[partition];
    return std::find(a.begin() + 1, a.end(), n) != a.end();
  }
  // The first failure stops the run; later events see !status_.ok() and write nothing.
  void Check(const Status& s) {
    if (!s.ok() && status_.ok()) status_ = s;
  }
  template <typename R>
  void Log(uint32_t n, const R& r) {
    if (!status_.ok()) return;
    auto p = nodes_[n].wal->Append(r);
    if (!p.ok()) {
      Check(p.status());
    } else {
      nodes_[n].last_record = *p;
      nodes_[n].last_record_finishes = {};
    }
  }

  SimConfig c_;
  Rng rng_;
  Status status_;
  uint64_t now_ = 0;
  uint64_t seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> servers_, clients_, near_candidates_;
  std::vector<std::vector<uint32_t>> assignment_;  // partition -> primary, backups...
  std::vector<uint32_t> key_partition_;
  std::vector<std::string> key_name_;
  std::vector<std::vector<LockWaiter>> lock_queue_;  // by account, at its primary
  std::vector<size_t> lock_head_;
  std::vector<Tx> txs_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint64_t> channel_last_;  // FIFO: last delivery time per channel
  std::vector<DiscoveryEvent> discovery_;
  std::vector<CutRun> cuts_;
  uint64_t started_txs_ = 0;
  uint64_t finished_txs_ = 0;
  uint64_t outcome_seq_ = 0;
  uint64_t next_cut_at_ = 0;  // finished count that starts the next cut
  uint64_t cut_spacing_ = 0;
  SimSummary summary_;
  std::vector<PendingFault> faults_;
  std::vector<TopologyVersion> topologies_;
  uint32_t topver_ = 1;             // the latest version discovery made
  uint32_t coordinator_ = 0;        // the oldest live server: the initiator
  bool exchange_pending_ = false;   // a leave is not yet seen everywhere
  uint32_t exchange_waiting_ = 0;   // live nodes yet to see it
  uint32_t exchange_node_ = kNone;  // who left
  bool quiescing_ = false;          // waiting for idle, to take a full snapshot
  uint64_t deferred_starts_ = 0;    // transactions held back meanwhile
  uint32_t snapshots_ = 0;
  std::unique_ptr<std::ofstream> truth_txs_;
  std::vector<std::string> value_scratch_;
};

}  // namespace sim
