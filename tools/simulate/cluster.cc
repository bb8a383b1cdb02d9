#include "tools/simulate/cluster.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include "recovery/partition_file.h"
#include "recovery/snapshot_file.h"

namespace sim {
namespace {

namespace fs = std::filesystem;
using wal::Pointer;
using wal::Status;
using wal::TxId;
using wal::Uuid;

constexpr uint32_t kCacheId = 1;
constexpr uint64_t kNsPerUs = 1000;
constexpr uint32_t kNone = UINT32_MAX;

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
  bool flag = false;        // commit (finish requests), committed (1PC responses)
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t tx = kNone;      // transaction slot
  uint32_t gen = 0;         // slot generation, to drop events of a finished slot
  uint32_t group = 0;
  uint32_t cut_topver = 0;
  Uuid cut;                 // wrapping: the sender's running cut id
  Uuid stamp;               // txCutId on finish requests and 1PC responses
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
  std::vector<uint32_t> keys;      // indices into Tx::accounts
  std::vector<uint32_t> backups;   // union of the backups of the keys' partitions
  std::vector<Reservation> reservations;
  uint32_t waiting_locks = 0;      // keys whose lock queue this group is not at the head of
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
  bool live = false;            // not yet done at the near node
  uint32_t pending = 0;         // messages in flight that refer to this slot
  TxId xid;
  uint32_t near = 0;
  uint32_t topver = 1;
  uint64_t started_at = 0;
  std::vector<uint32_t> accounts;
  std::vector<int64_t> new_balance;
  std::vector<uint8_t> existed;    // per key: the account existed when read under the lock
  std::vector<uint8_t> exists;     // per key: it exists after the transaction (0: deleted)
  std::vector<uint64_t> counter;   // per key, assigned at prepare
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
  bool recovered = false;       // finished by transaction recovery: its messages are void
  uint8_t decided = 0;          // 2PC: the near node's decision, 1 commit, 2 roll back
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
  std::vector<PartitionCopy> parts;     // by partition
  std::vector<int64_t> balance;         // by account (meaningful for held partitions)
  std::vector<uint8_t> open;            // by account: 1 while it exists (a closed one is deleted)
  std::vector<uint64_t> key_counter;    // by account: counter of the write held
  uint64_t local_order = 0;             // for transaction ids started here
  uint32_t next_discovery = 0;          // index into the discovery log
  uint64_t last_discovery_at = 0;
  uint32_t seen_topver = 1;
  bool alive = true;                    // not crashed
  bool joined = true;                   // false for a client that joins later
  uint32_t left_topver = 0;             // the version its leave made
  Pointer last_record;                  // of the WAL, for a torn tail
  Uuid last_record_finishes;            // the cut whose Finish record is last_record, if it is one
  std::vector<Event> parked;            // messages of a topology version not seen yet
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
  uint32_t baseline = 0;            // servers of its topology
  uint32_t finish_records = 0;      // Finish records written by them
  bool failed = false;
  std::string reason;
  bool done = false;
  std::vector<std::string> finished_nodes;
};

}  // namespace

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
  void Send(MsgType t, uint32_t from, uint32_t to, uint32_t tx, uint32_t group, bool flag,
            const Uuid& stamp);
  void Handle(const Event& e);
  void HandleMessage(const Event& e);
  void HandleDiscovery(uint32_t n);
  void ScheduleDiscovery(uint32_t n);
  void Broadcast(DiscoveryEvent ev);
  void OnCutIdAt(uint32_t n, const Uuid& id, uint32_t topver);

  // The transaction protocol.
  void StartTx(uint32_t near);
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
  void CommitRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, const Uuid& stamp,
                  bool recovery = false);
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
  std::vector<std::vector<uint32_t>> assignment_;   // partition -> primary, backups...
  std::vector<uint32_t> key_partition_;
  std::vector<std::string> key_name_;
  std::vector<std::vector<LockWaiter>> lock_queue_;  // by account, at its primary
  std::vector<size_t> lock_head_;
  std::vector<Tx> txs_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint64_t> channel_last_;               // FIFO: last delivery time per channel
  std::vector<DiscoveryEvent> discovery_;
  std::vector<CutRun> cuts_;
  uint64_t started_txs_ = 0;
  uint64_t finished_txs_ = 0;
  uint64_t outcome_seq_ = 0;
  uint64_t next_cut_at_ = 0;                         // finished count that starts the next cut
  uint64_t cut_spacing_ = 0;
  SimSummary summary_;
  std::vector<PendingFault> faults_;
  std::vector<TopologyVersion> topologies_;
  uint32_t topver_ = 1;                              // the latest version discovery made
  uint32_t coordinator_ = 0;                         // the oldest live server: the initiator
  bool exchange_pending_ = false;                    // a leave is not yet seen everywhere
  uint32_t exchange_waiting_ = 0;                    // live nodes yet to see it
  uint32_t exchange_node_ = kNone;                   // who left
  bool quiescing_ = false;                           // waiting for idle, to take a full snapshot
  uint64_t deferred_starts_ = 0;                     // transactions held back meanwhile
  uint32_t snapshots_ = 0;
  std::unique_ptr<std::ofstream> truth_txs_;
  std::vector<std::string> value_scratch_;
};

namespace {

void NodeCutListener::WriteStart(const wal::CutStartRecord& r) { cluster_->OnWriteStart(node_, r); }
void NodeCutListener::WriteFinish(const wal::CutFinishRecord& r) {
  cluster_->OnWriteFinish(node_, r);
}
void NodeCutListener::CutFailed(const Uuid& id, const std::string& reason) {
  cluster_->OnCutFailed(node_, id, reason);
}

uint64_t RendezvousScore(uint32_t partition, const Uuid& node) {
  uint64_t buf[3] = {partition, node.hi, node.lo};
  return XXH3_64bits(buf, sizeof(buf));
}

}  // namespace

const char* MsgTypeName(MsgType t) {
  static constexpr const char* kNames[] = {
      "LockRequest",        "LockResponse",        "LockRelease",      "NearPrepareRequest",
      "NearPrepareResponse", "DhtPrepareRequest",  "DhtPrepareResponse", "NearFinishRequest",
      "NearFinishResponse", "DhtFinishRequest",    "CutFinished",      "CutFailed"};
  return t < MsgType::kCount ? kNames[static_cast<size_t>(t)] : "?";
}

bool ParseMsgType(const std::string& name, MsgType* out) {
  for (size_t i = 0; i < static_cast<size_t>(MsgType::kCount); ++i) {
    if (name == MsgTypeName(static_cast<MsgType>(i))) {
      *out = static_cast<MsgType>(i);
      return true;
    }
  }
  return false;
}

Status Cluster::Setup() {
  uint32_t joins = 0;
  for (const auto& f : c_.faults) joins += f.kind == FaultKind::kJoinClient;
  const uint32_t total = c_.nodes + c_.clients + joins;
  nodes_.resize(total);
  for (uint32_t i = 0; i < total; ++i) {
    Node& n = nodes_[i];
    n.server = i < c_.nodes;
    n.name = n.server ? fmt::format("node-{}", i) : fmt::format("client-{}", i - c_.nodes);
    if (i >= c_.nodes + c_.clients) n.alive = n.joined = false;  // joins later
    n.id = Uuid{rng_.Next(), rng_.Next()};
    n.order = static_cast<uint16_t>(i + 1);
    n.listener = std::make_unique<NodeCutListener>(this, i);
    n.cm = std::make_unique<cut::CutManager>(n.listener.get(), n.server, n.joined_topver, c_.bug);
    if (n.joined) (n.server ? servers_ : clients_).push_back(i);
  }
  coordinator_ = servers_[0];
  WAL_RETURN_IF_ERROR(ResolveFaults());
  for (uint32_t i = 0; i < total; ++i) {
    bool ok = c_.near == NearMode::kAny || (c_.near == NearMode::kClients) != nodes_[i].server;
    ok = ok && nodes_[i].joined;
    if (ok) near_candidates_.push_back(i);
  }
  if (near_candidates_.empty()) return Status::InvalidArgument("no node can start transactions");
  assignment_.resize(c_.partitions);
  for (uint32_t p = 0; p < c_.partitions; ++p) {
    std::vector<std::pair<uint64_t, uint32_t>> scores;
    for (uint32_t s : servers_) scores.emplace_back(RendezvousScore(p, nodes_[s].id), s);
    std::sort(scores.begin(), scores.end(), std::greater<>());
    for (uint32_t k = 0; k <= c_.backups && k < scores.size(); ++k) {
      assignment_[p].push_back(scores[k].second);
    }
  }
  key_partition_.resize(c_.accounts);
  key_name_.resize(c_.accounts);
  for (uint32_t a = 0; a < c_.accounts; ++a) {
    key_name_[a] = fmt::format("acct-{}", a);
    key_partition_[a] =
        static_cast<uint32_t>(XXH3_64bits(key_name_[a].data(), key_name_[a].size()) % c_.partitions);
  }
  RecordTopology("start");
  lock_queue_.resize(c_.accounts);
  lock_head_.assign(c_.accounts, 0);
  channel_last_.assign(static_cast<size_t>(total) * total, 0);
  std::error_code ec;
  fs::create_directories(c_.out_dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", c_.out_dir, ec.message()));
  wal::WriterOptions wo;
  wo.segment_size = c_.segment_size;
  wo.compress_sealed = c_.compress;
  wo.fsync = c_.fsync;
  for (uint32_t s : servers_) {
    Node& n = nodes_[s];
    auto w = wal::WalWriter::Create(c_.out_dir + "/" + n.name + "/wal", n.id, n.order, wo);
    if (!w.ok()) return w.status();
    n.wal = std::move(w).value();
    n.parts.resize(c_.partitions);
    n.balance.assign(c_.accounts, 0);
    n.open.assign(c_.accounts, 1);
    n.key_counter.assign(c_.accounts, 0);
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      const auto& a = assignment_[p];
      n.parts[p].held = std::find(a.begin(), a.end(), s) != a.end();
    }
  }
  if (c_.truth) {
    fs::create_directories(c_.out_dir + "/truth", ec);
    truth_txs_ = std::make_unique<std::ofstream>(c_.out_dir + "/truth/transactions.jsonl");
    if (ec || !*truth_txs_) return Status::IoError(fmt::format("cannot create \"{}/truth\"", c_.out_dir));
  }
  txs_.reserve(c_.concurrency);
  cut_spacing_ = c_.cut_interval != 0 ? c_.cut_interval : c_.txs / (uint64_t{c_.cuts} + 1);
  if (cut_spacing_ == 0) cut_spacing_ = 1;
  next_cut_at_ = c_.cuts == 0 ? UINT64_MAX : cut_spacing_;
  return Status::Ok();
}

// The initial load (a data streamer's CREATE records, no transactions) and the full
// snapshot `base`, taken with no transaction in flight.
Status Cluster::WriteBaseSnapshot() {
  for (uint32_t s : servers_) {
    Node& n = nodes_[s];
    std::vector<std::vector<uint32_t>> by_part(c_.partitions);
    for (uint32_t a = 0; a < c_.accounts; ++a) {
      if (n.parts[key_partition_[a]].held) by_part[key_partition_[a]].push_back(a);
    }
    const std::string value = fmt::format("{}", c_.balance);
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      if (!n.parts[p].held) continue;
      wal::DataRecord d;
      uint64_t counter = 0;
      for (uint32_t a : by_part[p]) {
        wal::DataEntry e;
        e.cache_id = kCacheId;
        e.partition = p;
        e.counter = ++counter;
        e.op = wal::EntryOp::kCreate;
        e.flags = PrimaryOf(p) == s ? wal::kEntryFlagPrimary : 0;
        e.write_version = TxId{1, n.order, 0};
        e.key = key_name_[a];
        e.value = value;
        d.entries.push_back(e);
        n.balance[a] = c_.balance;
        n.key_counter[a] = counter;
      }
      if (!d.entries.empty()) Log(s, d);
      n.parts[p].tracker = recovery::CounterTracker(counter, counter);
    }
    WAL_RETURN_IF_ERROR(WriteSnapshot(s, "base"));
  }
  return status_;
}

// What server `s` holds of partition `p` now, as a partition file.
recovery::PartitionFile Cluster::PartitionFileOf(uint32_t s, uint32_t p) const {
  const Node& n = nodes_[s];
  recovery::PartitionFile pf;
  pf.cache_id = kCacheId;
  pf.partition = p;
  pf.lwm = n.parts[p].tracker.lwm();
  pf.hwm = n.parts[p].tracker.hwm();
  for (uint32_t a = 0; a < c_.accounts; ++a) {
    if (key_partition_[a] != p || n.open[a] == 0) continue;
    pf.entries.push_back({key_name_[a], fmt::format("{}", n.balance[a]), n.key_counter[a]});
  }
  std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
  return pf;
}

// A full snapshot on server `s`, taken with no transaction in flight: its partition
// files, then the ClusterSnapshotRecord, then snapshot.json pointing at the record.
Status Cluster::WriteSnapshot(uint32_t s, const std::string& name) {
  Node& n = nodes_[s];
  std::string dir = c_.out_dir + "/" + n.name + "/snapshots/" + name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", dir, ec.message()));
  for (uint32_t p = 0; p < c_.partitions; ++p) {
    if (!n.parts[p].held) continue;
    WAL_RETURN_IF_ERROR(recovery::WritePartitionFile(dir, PartitionFileOf(s, p), c_.fsync));
  }
  auto ptr = n.wal->Append(wal::ClusterSnapshotRecord{now_, name});
  if (!ptr.ok()) return ptr.status();
  n.last_record = *ptr;
  n.last_record_finishes = {};
  WAL_RETURN_IF_ERROR(n.wal->Flush());
  recovery::SnapshotMeta meta{name, n.name, *ptr, topver_, now_};
  return wal::WriteFileAtomically(dir + "/" + recovery::kSnapshotFileName, recovery::EncodeSnapshotFile(meta), c_.fsync);
}

uint64_t Cluster::Delay(MsgType t) {
  auto it = c_.delay_mean_by_type_us.find(t);
  double mean = it != c_.delay_mean_by_type_us.end() ? it->second : c_.delay_mean_us;
  double drawn = c_.constant_delays ? mean : rng_.Exponential(mean);
  return static_cast<uint64_t>((c_.delay_min_us + drawn) * kNsPerUs);
}

void Cluster::Send(MsgType t, uint32_t from, uint32_t to, uint32_t tx, uint32_t group, bool flag,
                   const Uuid& stamp) {
  Event e;
  e.kind = EventKind::kMessage;
  e.type = t;
  e.from = from;
  e.to = to;
  e.tx = tx;
  e.gen = tx == kNone ? 0 : txs_[tx].gen;
  if (tx != kNone) ++txs_[tx].pending;
  e.group = group;
  e.flag = flag;
  e.stamp = stamp;
  // Prepare/Finish requests and responses are wrapped while the sender runs a cut.
  const bool wrappable = t >= MsgType::kNearPrepareRequest && t <= MsgType::kDhtFinishRequest;
  if (wrappable) {
    e.cut = nodes_[from].cm->WrapId();
    e.cut_topver = nodes_[from].cm->WrapTopologyVersion();
  }
  uint64_t at = now_ + Delay(t);
  if (c_.fifo) {
    uint64_t& last = channel_last_[static_cast<size_t>(from) * nodes_.size() + to];
    at = std::max(at, last);
    last = at;
  }
  e.time = at;
  Push(e);
}

void Cluster::Broadcast(DiscoveryEvent ev) {
  discovery_.push_back(ev);
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    if (nodes_[n].alive && nodes_[n].joined) ScheduleDiscovery(n);
  }
}

// Each node receives the discovery log in order, each event after that node's delay.
void Cluster::ScheduleDiscovery(uint32_t n) {
  Node& node = nodes_[n];
  auto it = c_.discovery_delay_by_node_us.find(n);
  double mean = it != c_.discovery_delay_by_node_us.end() ? it->second : c_.discovery_delay_us;
  double drawn = c_.constant_delays ? mean : rng_.Exponential(mean);
  uint64_t at = now_ + static_cast<uint64_t>(drawn * kNsPerUs);
  at = std::max(at, node.last_discovery_at);
  node.last_discovery_at = at;
  Event e;
  e.kind = EventKind::kDiscovery;
  e.to = n;
  e.time = at;
  Push(e);
}

void Cluster::HandleDiscovery(uint32_t n) {
  Node& node = nodes_[n];
  if (!node.alive) return;
  const DiscoveryEvent ev = discovery_[node.next_discovery++];
  switch (ev.kind) {
    case DiscoveryEvent::kCutStart: OnCutIdAt(n, ev.cut, ev.topver); break;
    case DiscoveryEvent::kCutDone: node.cm->OnCutDone(ev.cut); break;
    case DiscoveryEvent::kNodeLeft:
      node.seen_topver = std::max(node.seen_topver, ev.topver);
      // A baseline node left: the running cut fails here.
      if (nodes_[ev.node].server) node.cm->Fail(fmt::format("baseline node {} left the cluster", nodes_[ev.node].name));
      Unpark(n);
      if (exchange_pending_ && ev.node == exchange_node_ && --exchange_waiting_ == 0) Exchange();
      break;
    case DiscoveryEvent::kNodeJoined:
      node.seen_topver = std::max(node.seen_topver, ev.topver);
      Unpark(n);
      break;
  }
}

void Cluster::OnCutIdAt(uint32_t n, const Uuid& id, uint32_t topver) {
  Node& node = nodes_[n];
  if (!node.cm->OnCutId(id, topver) || !node.server) return;
  double drawn = c_.constant_delays ? c_.start_delay_us : rng_.Exponential(c_.start_delay_us);
  uint64_t delay = static_cast<uint64_t>(drawn * kNsPerUs);
  if (delay == 0) {
    node.cm->WriteStartRecord(now_);
    return;
  }
  Event e;
  e.kind = EventKind::kStartRecord;
  e.to = n;
  e.cut = id;
  e.time = now_ + delay;
  Push(e);
}

void Cluster::OnWriteStart(uint32_t n, const wal::CutStartRecord& r) { Log(n, r); }

void Cluster::OnWriteFinish(uint32_t n, const wal::CutFinishRecord& r) {
  Log(n, r);
  nodes_[n].last_record_finishes = r.cut_id;
  for (auto& run : cuts_) {
    if (run.id == r.cut_id) ++run.finish_records;
  }
  Send(MsgType::kCutFinished, n, coordinator_, kNone, 0, true, r.cut_id);
}

void Cluster::OnCutFailed(uint32_t n, const Uuid& id, const std::string& reason) {
  Send(MsgType::kCutFailed, n, coordinator_, kNone, 0, false, id);
  if (!cuts_.empty() && cuts_.back().id == id && cuts_.back().reason.empty()) {
    cuts_.back().reason = fmt::format("{}: {}", nodes_[n].name, reason);
  }
}

void Cluster::MaybeStartCut() {
  if (!c_.cut_at_us.empty()) return;  // a scenario's schedule decides
  if (finished_txs_ < next_cut_at_ || cuts_.size() >= c_.cuts) return;
  InitiateCut();
}

void Cluster::InitiateCut() {
  if (!cuts_.empty() && !cuts_.back().done) return;  // the previous cut still runs
  if (Blocked()) return;  // an exchange or a full snapshot comes first
  CutRun run;
  run.id = Uuid{rng_.Next(), rng_.Next()};
  // The version of the latest discovery event: the cut's message follows it.
  run.topver = topver_;
  for (uint32_t s : servers_) run.baseline += nodes_[s].alive;
  run.initiated_at = now_;
  cuts_.push_back(run);
  ++summary_.cuts_started;
  next_cut_at_ = finished_txs_ + cut_spacing_;
  Broadcast({DiscoveryEvent::kCutStart, run.id, run.topver});
}

void Cluster::Handle(const Event& e) {
  switch (e.kind) {
    case EventKind::kMessage: HandleMessage(e); break;
    case EventKind::kDiscovery: HandleDiscovery(e.to); break;
    case EventKind::kStartRecord:
      if (nodes_[e.to].alive && nodes_[e.to].cm->cut_id() == e.cut) nodes_[e.to].cm->WriteStartRecord(now_);
      break;
    case EventKind::kLockTimeout: OnLockTimeout(e); break;
    case EventKind::kNextTx: StartTx(e.to); break;
    case EventKind::kInitiateCut: InitiateCut(); break;
    case EventKind::kFault: HandleFault(e.group); break;
  }
}

void Cluster::HandleMessage(const Event& e) {
  if (e.type == MsgType::kCutFinished || e.type == MsgType::kCutFailed) {
    CutRun* run = nullptr;
    for (auto& r : cuts_) {
      if (r.id == e.stamp) run = &r;
    }
    if (run == nullptr || run->done) return;
    if (!nodes_[e.to].alive) return;
    if (e.type == MsgType::kCutFinished) {
      ++run->finished;
      run->finished_nodes.push_back(nodes_[e.from].name);
    } else {
      run->failed = true;
    }
    if (run->failed || run->finished == run->baseline) {
      run->done = true;
      if (!run->failed) ++summary_.cuts_consistent;
      Broadcast({DiscoveryEvent::kCutDone, run->id, run->topver});
      MaybeStartCut();
    }
    return;
  }
  if (e.tx == kNone || txs_[e.tx].gen != e.gen) return;
  Tx& tx = txs_[e.tx];
  if (!nodes_[e.to].alive || tx.recovered) {
    // Lost with a crashed node, or about a transaction recovery has finished.
    --tx.pending;
    MaybeFree(e.tx);
    return;
  }
  if (tx.topver > nodes_[e.to].seen_topver) {
    // Mapped to a topology version this node has not seen yet: handled once it has.
    nodes_[e.to].parked.push_back(e);
    return;
  }
  --tx.pending;
  // A wrapped message starts the receiver's cut before the message is handled.
  if (!e.cut.IsNil()) OnCutIdAt(e.to, e.cut, e.cut_topver);
  switch (e.type) {
    case MsgType::kLockRequest: OnLockRequest(e); break;
    case MsgType::kLockResponse: OnLockResponse(e); break;
    case MsgType::kLockRelease: OnLockRelease(e); break;
    case MsgType::kNearPrepareRequest: OnNearPrepareRequest(e); break;
    case MsgType::kNearPrepareResponse: OnNearPrepareResponse(e); break;
    case MsgType::kDhtPrepareRequest: OnDhtPrepareRequest(e); break;
    case MsgType::kDhtPrepareResponse: OnDhtPrepareResponse(e); break;
    case MsgType::kNearFinishRequest: OnNearFinishRequest(e); break;
    case MsgType::kNearFinishResponse: OnNearFinishResponse(e); break;
    case MsgType::kDhtFinishRequest: OnDhtFinishRequest(e); break;
    default: break;
  }
  MaybeFree(e.tx);
}

// A slot is handed out again only when the near node is done with the transaction and
// no message refers to it any more (backups may still be committing).
void Cluster::MaybeFree(uint32_t tx) {
  Tx& t = txs_[tx];
  if (t.live || t.pending != 0 || t.freed) return;
  t.freed = true;
  free_slots_.push_back(tx);
}

void Cluster::StartTx(uint32_t near) {
  if (started_txs_ >= c_.txs || !status_.ok()) return;
  if (!nodes_[near].alive) {
    if (!nodes_[near].joined) ++deferred_starts_;  // a scenario's near node joins later
    return;
  }
  if (Blocked()) {
    ++deferred_starts_;  // started when the exchange or the full snapshot is over
    return;
  }
  ++started_txs_;
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(txs_.size());
    txs_.emplace_back();
  }
  Tx& t = txs_[slot];
  ++t.gen;
  t.live = true;
  t.freed = false;
  t.pending = 0;
  Node& nn = nodes_[near];
  t.near = near;
  t.topver = nn.seen_topver;
  t.xid = TxId{t.topver, nn.order, ++nn.local_order};
  t.started_at = now_;
  t.rolled_back = t.timed_out = t.preparing = false;
  t.stamp = {};
  t.recovered = false;
  t.decided = 0;
  t.unknown_group = t.unknown_node = kNone;
  // Distinct accounts; the lock order below makes the choice deadlock-free.
  const uint32_t k = !c_.fixed_accounts.empty()
                         ? static_cast<uint32_t>(c_.fixed_accounts.size())
                         : std::min<uint32_t>(std::max<uint32_t>(c_.keys_per_tx, 2), c_.accounts);
  t.accounts = c_.fixed_accounts;
  while (t.accounts.size() < k) {
    auto a = static_cast<uint32_t>(rng_.Below(c_.accounts));
    if (std::find(t.accounts.begin(), t.accounts.end(), a) == t.accounts.end()) t.accounts.push_back(a);
  }
  t.new_balance.assign(k, 0);
  t.existed.assign(k, 1);
  t.exists.assign(k, 1);
  t.counter.assign(k, 0);
  for (auto& g : t.groups) {
    g.keys.clear();
    g.backups.clear();
    g.reservations.clear();
  }
  size_t ngroups = 0;
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t p = PartitionOf(t.accounts[i]);
    uint32_t prim = PrimaryOf(p);
    size_t gi = 0;
    while (gi < ngroups && t.groups[gi].primary != prim) ++gi;
    if (gi == ngroups) {
      if (t.groups.size() <= ngroups) t.groups.emplace_back();
      Group& g = t.groups[ngroups++];
      g.primary = prim;
      g.keys.clear();
      g.backups.clear();
      g.reservations.clear();
    }
    Group& g = t.groups[gi];
    g.keys.push_back(i);
    for (size_t b = 1; b < assignment_[p].size(); ++b) {
      uint32_t bn = assignment_[p][b];
      if (std::find(g.backups.begin(), g.backups.end(), bn) == g.backups.end()) g.backups.push_back(bn);
    }
  }
  t.groups.resize(ngroups);
  std::sort(t.groups.begin(), t.groups.end(),
            [](const Group& a, const Group& b) { return a.primary < b.primary; });
  t.participants.clear();
  for (auto& g : t.groups) {
    g.waiting_locks = 0;
    g.lock_requested = g.locked = false;
    g.backup_acks = 0;
    g.primary_prepared = g.primary_finished = false;
    g.primary_state = kRoleNone;
    g.backup_state.assign(g.backups.size(), kRoleNone);
    wal::Participant p;
    p.primary = nodes_[g.primary].order;
    for (uint32_t b : g.backups) p.backups.push_back(nodes_[b].order);
    t.participants.push_back(std::move(p));
  }
  t.one_phase = t.groups.size() == 1 && t.groups[0].backups.size() <= 1;
  // Locks are taken primary by primary in node order: no cycle can form.
  t.locks_pending = static_cast<uint32_t>(t.groups.size());
  t.groups[0].lock_requested = true;
  Send(MsgType::kLockRequest, near, t.groups[0].primary, slot, 0, false, {});
  Event timeout;
  timeout.kind = EventKind::kLockTimeout;
  timeout.tx = slot;
  timeout.gen = t.gen;
  timeout.time = now_ + static_cast<uint64_t>(c_.lock_timeout_ms * 1e6);
  Push(timeout);
}

void Cluster::OnLockRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  if (!t.live) return;  // timed out before the request arrived: nothing to lock
  Group& g = t.groups[e.group];
  g.waiting_locks = 0;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    auto& q = lock_queue_[a];
    if (q.size() - lock_head_[a] > 0) ++g.waiting_locks;
    q.push_back({e.tx, t.gen, e.group});
  }
  GrantIfReady(e.tx, e.group);
}

void Cluster::GrantIfReady(uint32_t tx, uint32_t group) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  if (g.waiting_locks != 0 || g.locked || t.rolled_back) return;
  g.locked = true;
  Send(MsgType::kLockResponse, g.primary, t.near, tx, group, false, {});
}

void Cluster::ReleaseLocks(uint32_t tx, uint32_t group) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  if (!g.lock_requested) return;
  g.lock_requested = false;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    auto& q = lock_queue_[a];
    size_t& head = lock_head_[a];
    auto mine = [&](const LockWaiter& w) { return w.tx == tx && w.gen == t.gen && w.group == group; };
    auto it = std::find_if(q.begin() + static_cast<ptrdiff_t>(head), q.end(), mine);
    if (it == q.end()) continue;
    bool was_head = it == q.begin() + static_cast<ptrdiff_t>(head);
    if (was_head) {
      ++head;
    } else {
      q.erase(it);
    }
    if (head == q.size()) {
      q.clear();
      head = 0;
    } else if (was_head) {
      const LockWaiter next = q[head];
      --txs_[next.tx].groups[next.group].waiting_locks;
      GrantIfReady(next.tx, next.group);
    }
    if (head > 64 && head * 2 > q.size()) {
      q.erase(q.begin(), q.begin() + static_cast<ptrdiff_t>(head));
      head = 0;
    }
  }
}

void Cluster::OnLockRelease(const Event& e) { ReleaseLocks(e.tx, e.group); }

void Cluster::OnLockResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.rolled_back || !t.live) return;  // timed out meanwhile: the release is on its way
  // The primary read the values under the lock.
  Group& g = t.groups[e.group];
  const Node& primary = nodes_[g.primary];
  for (uint32_t ki : g.keys) {
    t.new_balance[ki] = primary.balance[t.accounts[ki]];
    t.existed[ki] = t.exists[ki] = primary.open[t.accounts[ki]];
  }
  if (--t.locks_pending > 0) {
    Group& next = t.groups[e.group + 1];
    next.lock_requested = true;
    Send(MsgType::kLockRequest, t.near, next.primary, e.tx, e.group + 1, false, {});
    return;
  }
  if (t.accounts.size() >= 2) Transfer(t);  // a one-key scenario transaction rewrites its value
  Prepare(e.tx);
}

// The bank workload on the values read under the locks; money is never created or lost.
// A closed account (deleted) is reopened (created) by the next transaction that touches
// it, with money moved in from the others; otherwise, now and then (--close-rate), the
// first account is closed, all its money moved out first; otherwise a random amount
// moves from the first account to the others.
void Cluster::Transfer(Tx& t) {
  const size_t k = t.accounts.size();
  size_t closed = 0, giver = k;
  for (size_t i = 0; i < k; ++i) {
    if (!t.existed[i]) {
      ++closed;
    } else if (giver == k) {
      giver = i;
    }
  }
  if (closed > 0) {
    const int64_t have = giver == k ? 0 : t.new_balance[giver];
    int64_t amount = have <= 0 ? 0 : static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(std::min<int64_t>(have, 100)) + 1));
    if (giver != k) t.new_balance[giver] -= amount;
    size_t given = 0;
    for (size_t i = 0; i < k; ++i) {
      if (t.existed[i]) continue;
      int64_t share = amount / static_cast<int64_t>(closed) + (given++ == 0 ? amount % static_cast<int64_t>(closed) : 0);
      t.new_balance[i] = share;
      t.exists[i] = 1;
    }
    return;
  }
  int64_t from = t.new_balance[0];
  int64_t amount = from <= 0 ? 0 : static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(std::min<int64_t>(from, 100)) + 1));
  if (c_.close_rate > 0 && rng_.Unit() < c_.close_rate) {
    amount = from;
    t.exists[0] = 0;
  }
  t.new_balance[0] -= amount;
  const size_t others = k - 1;
  for (size_t i = 1; i < k; ++i) {
    int64_t share = amount / static_cast<int64_t>(others) + (i == 1 ? amount % static_cast<int64_t>(others) : 0);
    t.new_balance[i] += share;
  }
}

void Cluster::Prepare(uint32_t tx) {
  Tx& t = txs_[tx];
  t.preparing = true;
  t.responses_pending = static_cast<uint32_t>(t.groups.size());
  (t.one_phase ? summary_.one_phase : summary_.two_phase)++;
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    Send(MsgType::kNearPrepareRequest, t.near, t.groups[gi].primary, tx, gi, false, {});
  }
}

uint8_t& Cluster::StateOf(Group& g, uint32_t n, bool primary) {
  if (primary) return g.primary_state;
  size_t i = static_cast<size_t>(std::find(g.backups.begin(), g.backups.end(), n) - g.backups.begin());
  return g.backup_state[i];
}

void Cluster::LogPrepared(uint32_t n, Tx& t, Group& g, bool primary) {
  wal::TxRecord r;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) == n : IsBackupOf(n, res.partition)) {
      r.counters.push_back({kCacheId, res.partition, res.start, res.delta});
    }
  }
  r.state = wal::TxState::kPrepared;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags = t.one_phase ? wal::kTxFlagOnePhase : 0;
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRolePrepared;
  nodes_[n].cm->OnTxPrepared(t.xid);
}

void Cluster::OnNearPrepareRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  Node& n = nodes_[e.to];
  // Reserve counters per partition: the keys of one partition get consecutive ones.
  g.reservations.clear();
  for (uint32_t ki : g.keys) {
    uint32_t p = PartitionOf(t.accounts[ki]);
    auto it = std::find_if(g.reservations.begin(), g.reservations.end(),
                           [&](const Reservation& r) { return r.partition == p; });
    if (it == g.reservations.end()) {
      g.reservations.push_back({p, 0, 0});
      it = g.reservations.end() - 1;
    }
    ++it->delta;
  }
  for (auto& r : g.reservations) {
    r.start = n.parts[r.partition].tracker.Reserve(r.delta);
    uint64_t next = r.start;
    for (uint32_t ki : g.keys) {
      if (PartitionOf(t.accounts[ki]) == r.partition) t.counter[ki] = ++next;
    }
  }
  LogPrepared(e.to, t, g, true);
  g.primary_prepared = true;
  if (t.one_phase && g.backups.empty()) {
    // 1PC without a backup: the primary commits first and stamps the transaction.
    Uuid stamp = n.cm->StampId();
    t.stamp = stamp;
    CommitRole(e.to, e.tx, e.group, true, stamp);
    ReleaseLocks(e.tx, e.group);
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, true, stamp);
    return;
  }
  if (g.backups.empty()) {
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, false, {});
    return;
  }
  g.backup_acks = 0;
  for (uint32_t b : g.backups) Send(MsgType::kDhtPrepareRequest, e.to, b, e.tx, e.group, false, {});
}

void Cluster::OnDhtPrepareRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  Node& n = nodes_[e.to];
  for (const auto& r : g.reservations) {
    if (IsBackupOf(e.to, r.partition)) n.parts[r.partition].tracker.RaiseHwm(r.start + r.delta);
  }
  LogPrepared(e.to, t, g, false);
  if (t.one_phase) {
    // 1PC with a backup: the backup commits first and stamps the transaction; its
    // response carries the commit.
    Uuid stamp = n.cm->StampId();
    CommitRole(e.to, e.tx, e.group, false, stamp);
    Send(MsgType::kDhtPrepareResponse, e.to, g.primary, e.tx, e.group, true, stamp);
    return;
  }
  Send(MsgType::kDhtPrepareResponse, e.to, g.primary, e.tx, e.group, false, {});
}

void Cluster::OnDhtPrepareResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  if (t.one_phase && e.flag) {
    t.stamp = e.stamp;  // copied onto the primary's tx before it commits
    CommitRole(e.to, e.tx, e.group, true, e.stamp);
    ReleaseLocks(e.tx, e.group);
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, true, e.stamp);
    return;
  }
  if (++g.backup_acks == g.backups.size()) {
    Send(MsgType::kNearPrepareResponse, e.to, t.near, e.tx, e.group, false, {});
  }
}

void Cluster::OnNearPrepareResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.one_phase) {
    TxDone(e.tx, true);
    return;
  }
  if (--t.responses_pending > 0) return;
  // 2PC: the near node decides and is the first committer: it stamps the transaction.
  bool commit = !(c_.rollback_rate > 0 && rng_.Unit() < c_.rollback_rate);
  Uuid stamp = commit ? nodes_[t.near].cm->StampId() : Uuid{};
  t.stamp = stamp;
  t.decided = commit ? 1 : 2;
  if (commit && c_.unknown_rate > 0 && rng_.Unit() < c_.unknown_rate) {
    // A heuristic failure on one participant: it applies the writes but cannot tell
    // the outcome, and logs the transaction UNKNOWN.
    t.unknown_group = static_cast<uint32_t>(rng_.Below(t.groups.size()));
    const Group& g = t.groups[t.unknown_group];
    uint64_t role = rng_.Below(g.backups.size() + 1);
    t.unknown_node = role == 0 ? g.primary : g.backups[role - 1];
  }
  t.responses_pending = static_cast<uint32_t>(t.groups.size());
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    Send(MsgType::kNearFinishRequest, t.near, t.groups[gi].primary, e.tx, gi, commit, stamp);
  }
}

void Cluster::OnNearFinishRequest(const Event& e) {
  Tx& t = txs_[e.tx];
  Group& g = t.groups[e.group];
  if (e.flag) {
    CommitRole(e.to, e.tx, e.group, true, e.stamp);
  } else {
    RollbackRole(e.to, e.tx, e.group, true);
  }
  g.primary_finished = true;
  ReleaseLocks(e.tx, e.group);
  for (uint32_t b : g.backups) Send(MsgType::kDhtFinishRequest, e.to, b, e.tx, e.group, e.flag, e.stamp);
  Send(MsgType::kNearFinishResponse, e.to, t.near, e.tx, e.group, e.flag, e.stamp);
}

void Cluster::OnDhtFinishRequest(const Event& e) {
  if (e.flag) {
    CommitRole(e.to, e.tx, e.group, false, e.stamp);
  } else {
    RollbackRole(e.to, e.tx, e.group, false);
  }
}

void Cluster::OnNearFinishResponse(const Event& e) {
  Tx& t = txs_[e.tx];
  if (--t.responses_pending > 0) return;
  t.rolled_back = !e.flag;
  // Backups may still be applying: the slot stays live until their finish requests are
  // handled, which TxDone arranges by retiring it only when no event refers to it.
  TxDone(e.tx, e.flag);
}

void Cluster::OnLockTimeout(const Event& e) {
  Tx& t = txs_[e.tx];
  if (t.gen != e.gen || !t.live || t.preparing || t.recovered || !nodes_[t.near].alive) return;
  // Not every lock came in time: release what was asked for and give up (no WAL: the
  // transaction never prepared anywhere).
  t.rolled_back = true;
  t.timed_out = true;
  ++summary_.lock_timeouts;
  for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
    if (t.groups[gi].lock_requested) Send(MsgType::kLockRelease, t.near, t.groups[gi].primary, e.tx, gi, false, {});
  }
  TxDone(e.tx, false);
}

void Cluster::CommitRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, const Uuid& stamp,
                         bool recovery) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  Node& node = nodes_[n];
  wal::DataRecord d;
  d.timestamp = now_;
  if (value_scratch_.size() < g.keys.size()) value_scratch_.resize(g.keys.size());
  size_t vi = 0;
  for (uint32_t ki : g.keys) {
    uint32_t a = t.accounts[ki];
    uint32_t p = PartitionOf(a);
    if (primary ? PrimaryOf(p) != n : !IsBackupOf(n, p)) continue;
    std::string& v = value_scratch_[vi++];
    fmt::format_int f(t.new_balance[ki]);
    v.assign(f.data(), f.size());
    if (!t.exists[ki]) v.clear();
    wal::DataEntry e;
    e.cache_id = kCacheId;
    e.partition = p;
    e.counter = t.counter[ki];
    e.op = !t.exists[ki] ? wal::EntryOp::kDelete : t.existed[ki] ? wal::EntryOp::kUpdate : wal::EntryOp::kCreate;
    e.flags = primary ? wal::kEntryFlagPrimary : 0;
    e.xid = t.xid;
    e.write_version = TxId{t.topver, nodes_[g.primary].order, t.xid.order};
    e.key = key_name_[a];
    e.value = v;
    d.entries.push_back(e);
    // A copy applies a key write only if it is newer than what it holds (backups may
    // receive two transactions on one key in either order).
    if (t.counter[ki] > node.key_counter[a]) {
      node.key_counter[a] = t.counter[ki];
      node.balance[a] = t.exists[ki] ? t.new_balance[ki] : 0;
      node.open[a] = t.exists[ki];
    }
  }
  Log(n, d);
  const bool unknown = group == t.unknown_group && n == t.unknown_node;
  wal::TxRecord r;
  r.state = unknown ? wal::TxState::kUnknown : wal::TxState::kCommitted;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags = static_cast<uint8_t>((t.one_phase ? wal::kTxFlagOnePhase : 0) | (recovery ? wal::kTxFlagRecoveryFinish : 0));
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRoleCommitted;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) == n : IsBackupOf(n, res.partition)) {
      Check(node.parts[res.partition].tracker.Update(res.start, res.delta));
    }
  }
  cut::TxFinish f;
  f.xid = t.xid;
  f.outcome = unknown ? cut::TxOutcome::kUnknown : cut::TxOutcome::kCommitted;
  f.tx_cut_id = stamp;
  f.topology_version = t.topver;
  f.recovery_finish = recovery;
  node.cm->OnTxFinished(f, now_);
}

void Cluster::RollbackRole(uint32_t n, uint32_t tx, uint32_t group, bool primary, bool recovery) {
  Tx& t = txs_[tx];
  Group& g = t.groups[group];
  Node& node = nodes_[n];
  wal::TxRecord r;
  r.state = wal::TxState::kRolledBack;
  r.xid = t.xid;
  r.topology_version = t.topver;
  r.timestamp = now_;
  r.flags = recovery ? wal::kTxFlagRecoveryFinish : 0;
  r.participants = t.participants;
  Log(n, r);
  StateOf(g, n, primary) = kRoleRolledBack;
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) != n : !IsBackupOf(n, res.partition)) continue;
    Log(n, wal::RollbackRecord{kCacheId, res.partition, res.start, res.delta});
    Check(node.parts[res.partition].tracker.Update(res.start, res.delta));
  }
  cut::TxFinish f;
  f.xid = t.xid;
  f.outcome = cut::TxOutcome::kRolledBack;
  f.topology_version = t.topver;
  f.recovery_finish = recovery;
  node.cm->OnTxFinished(f, now_);
}

void Cluster::WriteTruthTx(const Tx& t, const char* outcome) {
  if (!truth_txs_) return;
  nlohmann::ordered_json j;
  j["tx"] = t.xid.ToString();
  j["near"] = nodes_[t.near].name;
  j["outcome"] = outcome;
  j["order"] = outcome_seq_;
  j["one_phase"] = t.one_phase;
  if (t.recovered) j["recovered"] = true;
  j["stamp"] = t.stamp.IsNil() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.stamp.ToString());
  auto& keys = j["keys"] = nlohmann::ordered_json::array();
  for (uint32_t a : t.accounts) keys.push_back(key_name_[a]);
  auto& parts = j["participants"] = nlohmann::ordered_json::array();
  for (const auto& g : t.groups) {
    nlohmann::ordered_json pj;
    pj["primary"] = nodes_[g.primary].name;
    auto& bj = pj["backups"] = nlohmann::ordered_json::array();
    for (uint32_t b : g.backups) bj.push_back(nodes_[b].name);
    parts.push_back(pj);
  }
  *truth_txs_ << j.dump() << '\n';
}

void Cluster::TxDone(uint32_t tx, bool committed) {
  Tx& t = txs_[tx];
  ++outcome_seq_;
  ++finished_txs_;
  ScheduleCountFaults();
  if (committed) {
    ++summary_.txs_committed;
  } else {
    ++summary_.txs_rolled_back;
  }
  WriteTruthTx(t, committed ? "committed" : t.timed_out ? "lock-timeout" : "rolled-back");
  t.live = false;
  uint32_t near = t.near;
  MaybeFree(tx);
  MaybeStartCut();
  Event next;
  next.kind = EventKind::kNextTx;
  next.to = near;
  next.time = now_;
  Push(next);
}

// ---- Faults -------------------------------------------------------------------------

Status Cluster::ResolveFaults() {
  uint32_t next_join = c_.nodes + c_.clients;
  std::vector<uint32_t> crashed;
  uint32_t servers_crashed = 0;
  for (const auto& f : c_.faults) {
    PendingFault pf;
    pf.kind = f.kind;
    pf.when = f.when;
    if (f.kind == FaultKind::kJoinClient) {
      pf.node = next_join++;
    } else {
      for (uint32_t i = 0; i < nodes_.size(); ++i) {
        if (nodes_[i].name == f.node) pf.node = i;
      }
      const bool server = f.kind == FaultKind::kCrashServer;
      if (pf.node == kNone || nodes_[pf.node].server != server) {
        return Status::InvalidArgument(fmt::format("{}: no {} \"{}\"", server ? "--crash" : "--crash-client",
                                                   server ? "server" : "client", f.node));
      }
      if (std::find(crashed.begin(), crashed.end(), pf.node) != crashed.end()) {
        return Status::InvalidArgument(fmt::format("{} crashes twice", f.node));
      }
      crashed.push_back(pf.node);
      servers_crashed += server;
    }
    faults_.push_back(pf);
  }
  if (servers_crashed >= c_.nodes) return Status::InvalidArgument("--crash: at least one server must survive");
  if (servers_crashed > 0 && c_.backups == 0) {
    return Status::InvalidArgument("--crash: needs --backups 1 or more, or the crashed node's partitions are lost");
  }
  return Status::Ok();
}

// Faults due after a number of finished transactions are queued when it is reached.
void Cluster::ScheduleCountFaults() {
  for (uint32_t i = 0; i < faults_.size(); ++i) {
    PendingFault& f = faults_[i];
    if (f.scheduled || f.when.by_time || finished_txs_ < f.when.txs) continue;
    QueueFault(i, now_);
  }
}

void Cluster::QueueFault(uint32_t i, uint64_t at) {
  faults_[i].scheduled = true;
  Event e;
  e.kind = EventKind::kFault;
  e.group = i;
  e.time = at;
  Push(e);
}

void Cluster::HandleFault(uint32_t i) {
  PendingFault& f = faults_[i];
  if (f.done || !status_.ok()) return;
  if (Blocked()) {
    f.scheduled = false;  // one leave at a time: Resume() queues it again
    f.when = FaultTime{};
    return;
  }
  f.done = true;
  if (f.kind == FaultKind::kJoinClient) {
    Join(f.node);
  } else if (nodes_[f.node].alive) {
    Crash(f.node);
  }
}

// Node `x` stops. A server's WAL ends where its last write got to (with --torn-tail, in
// the middle of its last record). The others see it leave by discovery.
void Cluster::Crash(uint32_t x) {
  Node& n = nodes_[x];
  n.alive = false;
  near_candidates_.erase(std::remove(near_candidates_.begin(), near_candidates_.end(), x), near_candidates_.end());
  for (const Event& e : n.parked) {
    if (txs_[e.tx].gen == e.gen) --txs_[e.tx].pending;
  }
  n.parked.clear();
  if (n.server) {
    if (c_.torn_tail) {
      const Pointer end = n.wal->position();
      uint32_t size = end.segment == n.last_record.segment ? end.offset - n.last_record.offset : 0;
      uint32_t drop = size >= 2 ? 1 + static_cast<uint32_t>(rng_.Below(size - 1)) : 0;
      Check(n.wal->CloseTorn(drop));
      // A Finish record cut short was never written, as far as the WAL tells.
      if (drop > 0 && !n.last_record_finishes.IsNil()) {
        for (auto& run : cuts_) {
          if (run.id == n.last_record_finishes) --run.finish_records;
        }
      }
    } else {
      Check(n.wal->Close());
    }
  }
  ++summary_.crashes;
  n.left_topver = ++topver_;
  exchange_pending_ = true;
  exchange_node_ = x;
  exchange_waiting_ = 0;
  for (const auto& m : nodes_) exchange_waiting_ += m.alive && m.joined;
  Broadcast({DiscoveryEvent::kNodeLeft, {}, topver_, x});
  for (uint32_t tx = 0; tx < txs_.size(); ++tx) MaybeFree(tx);
}

// A client joins: a new topology version. It takes part only in cuts started after it
// joined; the discovery log it receives begins after its own join.
void Cluster::Join(uint32_t x) {
  Node& n = nodes_[x];
  n.joined_topver = n.seen_topver = ++topver_;
  Broadcast({DiscoveryEvent::kNodeJoined, {}, topver_, x});
  n.alive = n.joined = true;
  n.next_discovery = static_cast<uint32_t>(discovery_.size());
  n.last_discovery_at = now_;
  n.cm = std::make_unique<cut::CutManager>(n.listener.get(), false, n.joined_topver, c_.bug);
  clients_.push_back(x);
  if (c_.near != NearMode::kServers) near_candidates_.push_back(x);
  ++summary_.joins;
  RecordTopology(fmt::format("{} joined", n.name));
  if (!Blocked()) Resume();
}

// Every live node has seen the leave: transaction recovery, then (for a server) the
// partition map exchange: backups take over, counters are finalized, the running cut is
// over, and a full snapshot follows once the cluster is idle.
void Cluster::Exchange() {
  // Still blocked while recovery runs: a transaction it finishes must not start a cut.
  const uint32_t gone = exchange_node_;
  const Node& g = nodes_[gone];
  RecoverTransactions(gone);
  if (g.server) {
    FinalizeCountersOf(gone);
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      auto& a = assignment_[p];
      a.erase(std::remove(a.begin(), a.end(), gone), a.end());
      if (a.empty()) {
        Check(Status::InvalidArgument(
            fmt::format("the crash of {} leaves partition {} without a copy: use more --backups", g.name, p)));
      }
    }
    for (uint32_t s : servers_) {
      if (nodes_[s].alive) {
        coordinator_ = s;
        break;
      }
    }
    if (!cuts_.empty() && !cuts_.back().done) {
      CutRun& r = cuts_.back();
      r.failed = r.done = true;
      if (r.reason.empty()) r.reason = fmt::format("baseline node {} left the cluster", g.name);
      Broadcast({DiscoveryEvent::kCutDone, r.id, r.topver});
    }
    quiescing_ = true;
  }
  RecordTopology(fmt::format("{} left", g.name));
  exchange_pending_ = false;
  if (!quiescing_) Resume();
}

// Transactions node `gone` took part in (as near node, primary or backup): one still
// taking locks is abandoned; a prepared one is committed if the near node survives and
// decided to commit or a surviving participant committed it, else rolled back. Each
// surviving role still open finishes with RECOVERY_FINISH.
void Cluster::RecoverTransactions(uint32_t gone) {
  for (uint32_t tx = 0; tx < txs_.size(); ++tx) {
    Tx& t = txs_[tx];
    if (t.freed || t.recovered) continue;
    bool involved = t.near == gone;
    for (const auto& g : t.groups) {
      involved = involved || g.primary == gone ||
                 std::find(g.backups.begin(), g.backups.end(), gone) != g.backups.end();
    }
    if (!involved) continue;
    t.recovered = true;
    if (!t.preparing) {
      for (uint32_t gi = 0; gi < t.groups.size(); ++gi) ReleaseLocks(tx, gi);
      if (t.live) {
        t.rolled_back = true;
        TxDone(tx, false);
      }
      MaybeFree(tx);
      continue;
    }
    const bool near_alive = nodes_[t.near].alive;
    bool commit = near_alive && t.decided == 1;
    for (const auto& g : t.groups) {
      commit = commit || (nodes_[g.primary].alive && g.primary_state == kRoleCommitted);
      for (size_t b = 0; b < g.backups.size(); ++b) {
        commit = commit || (nodes_[g.backups[b]].alive && g.backup_state[b] == kRoleCommitted);
      }
    }
    if (near_alive && t.decided == 2) commit = false;
    bool wrote = false;
    for (uint32_t gi = 0; gi < t.groups.size(); ++gi) {
      const std::vector<uint32_t> backups = t.groups[gi].backups;
      auto finish = [&](uint32_t n, bool primary) {
        if (!nodes_[n].alive) return;
        const uint8_t st = StateOf(t.groups[gi], n, primary);
        if (st == kRolePrepared) {
          if (commit) {
            CommitRole(n, tx, gi, primary, {}, true);
          } else {
            RollbackRole(n, tx, gi, primary, true);
          }
          wrote = true;
        } else if (st == kRoleNone && !commit) {
          CloseReserved(n, tx, gi, primary);  // a backup the prepare never reached
        }
      };
      finish(t.groups[gi].primary, true);
      for (uint32_t b : backups) finish(b, false);
      ReleaseLocks(tx, gi);
    }
    if (wrote) ++summary_.txs_recovered;
    if (t.live) {
      t.rolled_back = !commit;
      TxDone(tx, commit);
    }
    MaybeFree(tx);
  }
}

// A rolled-back transaction's reserved counters on a copy that never prepared it.
void Cluster::CloseReserved(uint32_t n, uint32_t tx, uint32_t group, bool primary) {
  const Group& g = txs_[tx].groups[group];
  for (const auto& res : g.reservations) {
    if (primary ? PrimaryOf(res.partition) != n : !IsBackupOf(n, res.partition)) continue;
    Log(n, wal::RollbackRecord{kCacheId, res.partition, res.start, res.delta});
    Check(nodes_[n].parts[res.partition].tracker.Update(res.start, res.delta));
  }
}

// The copies of the partitions `gone` held agree on the highest counter reserved among
// them, and each closes its gaps below it with RollbackRecords.
void Cluster::FinalizeCountersOf(uint32_t gone) {
  for (uint32_t p = 0; p < c_.partitions; ++p) {
    const auto& a = assignment_[p];
    if (std::find(a.begin(), a.end(), gone) == a.end()) continue;
    uint64_t hwm = 0;
    for (uint32_t c : a) {
      if (c != gone) hwm = std::max(hwm, nodes_[c].parts[p].tracker.hwm());
    }
    for (uint32_t c : a) {
      if (c == gone) continue;
      auto& tracker = nodes_[c].parts[p].tracker;
      tracker.RaiseHwm(hwm);
      for (const auto& gap : tracker.Finalize()) {
        Log(c, wal::RollbackRecord{kCacheId, p, gap.first - 1, gap.size()});
        ++summary_.gaps_closed;
      }
    }
  }
}

// The cluster is idle after a server left: every survivor takes a new full snapshot, and
// later cuts are increments of it.
void Cluster::TakeSnapshot() {
  quiescing_ = false;
  const std::string name = fmt::format("snap-{}", ++snapshots_);
  for (uint32_t s : servers_) {
    if (nodes_[s].alive) Check(WriteSnapshot(s, name));
  }
  Resume();
}

void Cluster::Resume() {
  for (; deferred_starts_ > 0; --deferred_starts_) {
    Event e;
    e.kind = EventKind::kNextTx;
    e.to = coordinator_;
    e.time = now_;
    Push(e);
  }
  for (uint32_t i = 0; i < faults_.size(); ++i) {
    if (faults_[i].done || faults_[i].scheduled || faults_[i].when.by_time || faults_[i].when.txs != 0) continue;
    QueueFault(i, now_);
  }
  MaybeStartCut();
}

void Cluster::RecordTopology(const std::string& event) {
  TopologyVersion tv;
  tv.version = topver_;
  tv.event = event;
  for (uint32_t s : servers_) {
    if (nodes_[s].alive) tv.servers.push_back(s);
  }
  for (uint32_t k : clients_) {
    if (nodes_[k].alive) tv.clients.push_back(k);
  }
  tv.assignment = assignment_;
  topologies_.push_back(std::move(tv));
}

void Cluster::Unpark(uint32_t n) {
  std::vector<Event> parked = std::move(nodes_[n].parked);
  nodes_[n].parked.clear();
  for (Event e : parked) {
    e.time = now_;
    Push(e);
  }
}

wal::Result<SimSummary> Cluster::Run() {
  WAL_RETURN_IF_ERROR(Setup());
  WAL_RETURN_IF_ERROR(WriteBaseSnapshot());
  for (double at : c_.cut_at_us) {
    Event e;
    e.kind = EventKind::kInitiateCut;
    e.time = static_cast<uint64_t>(at * kNsPerUs);
    Push(e);
  }
  for (uint32_t i = 0; i < faults_.size(); ++i) {
    if (!faults_[i].when.by_time && faults_[i].when.txs > 0) continue;
    QueueFault(i, faults_[i].when.by_time ? faults_[i].when.at_ns : 0);
  }
  for (uint32_t i = 0; i < c_.concurrency && i < c_.txs; ++i) {
    Event e;
    e.kind = EventKind::kNextTx;
    e.to = near_candidates_[rng_.Below(near_candidates_.size())];
    e.time = 0;
    Push(e);
  }
  uint64_t handled = 0;
  while (!queue_.empty() && status_.ok()) {
    if ((++handled & 0xFFF) == 0 && c_.stop != nullptr && c_.stop->load()) {
      return Status::Cancelled("simulation interrupted");
    }
    Event e = queue_.top();
    queue_.pop();
    now_ = e.time;
    if (e.kind == EventKind::kNextTx) {
      // Near nodes are drawn anew for every transaction.
      if (c_.fixed_near < 0 && near_candidates_.empty()) continue;  // every near node crashed
      e.to = c_.fixed_near >= 0 ? static_cast<uint32_t>(c_.fixed_near)
                                : near_candidates_[rng_.Below(near_candidates_.size())];
    }
    Handle(e);
    // After a server left, the full snapshot waits for the cluster to be idle.
    if (quiescing_ && free_slots_.size() == txs_.size()) TakeSnapshot();
  }
  WAL_RETURN_IF_ERROR(status_);
  summary_.simulated_ns = now_;
  WAL_RETURN_IF_ERROR(Finish());
  return summary_;
}

Status Cluster::Finish() {
  for (uint32_t s : servers_) {
    Node& n = nodes_[s];
    if (!n.alive) {
      // A crashed node keeps its WAL and snapshots; its memory is gone.
      summary_.nodes.push_back({n.name, n.wal->records_written(), n.wal->bytes_written()});
      continue;
    }
    std::string dir = c_.out_dir + "/" + n.name + "/data";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", dir, ec.message()));
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      if (!n.parts[p].held) continue;
      WAL_RETURN_IF_ERROR(recovery::WritePartitionFile(dir, PartitionFileOf(s, p), c_.fsync));
    }
    WAL_RETURN_IF_ERROR(n.wal->Close());
    NodeSummary ns;
    ns.name = n.name;
    ns.records = n.wal->records_written();
    ns.bytes = n.wal->bytes_written();
    summary_.nodes.push_back(ns);
    const cut::CutStats& st = n.cm->stats();
    auto& sum = summary_.classification;
    sum.cuts_started += st.cuts_started;
    sum.cuts_finished += st.cuts_finished;
    sum.cuts_failed += st.cuts_failed;
    sum.watched += st.watched;
    sum.before += st.before;
    sum.after_by_stamp += st.after_by_stamp;
    sum.after_by_topology += st.after_by_topology;
    sum.rolled_back += st.rolled_back;
    sum.committed_in_start_step += st.committed_in_start_step;
  }
  // What the WALs say: a cut is complete when every server of its topology wrote Finish.
  summary_.cuts_consistent = 0;
  for (const auto& r : cuts_) summary_.cuts_consistent += r.finish_records == r.baseline;
  if (truth_txs_) {
    truth_txs_->close();
    if (!*truth_txs_) return Status::IoError("cannot write truth/transactions.jsonl");
    nlohmann::ordered_json cuts = nlohmann::ordered_json::array();
    for (const auto& r : cuts_) {
      nlohmann::ordered_json j;
      j["id"] = r.id.ToString();
      j["topology_version"] = r.topver;
      j["initiated_at"] = r.initiated_at;
      j["verdict"] = r.finish_records == r.baseline ? "complete" : !r.done ? "unfinished" : "failed";
      j["reason"] = r.reason;
      j["finished_nodes"] = r.finished_nodes;
      cuts.push_back(j);
    }
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["cuts"] = cuts;
    WAL_RETURN_IF_ERROR(wal::WriteFileAtomically(c_.out_dir + "/truth/cuts.json", doc.dump(2) + "\n", c_.fsync));
  }
  return WriteClusterJson();
}

Status Cluster::WriteClusterJson() {
  nlohmann::ordered_json doc;
  doc["schema"] = 1;
  doc["seed"] = std::to_string(c_.seed);
  auto& nodes = doc["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : nodes_) {
    if (!n.joined) continue;  // a join that never happened
    nlohmann::ordered_json j;
    j["name"] = n.name;
    j["role"] = n.server ? "server" : "client";
    j["id"] = n.id.ToString();
    j["order"] = n.order;
    j["joined_topology_version"] = n.joined_topver;
    if (n.left_topver != 0) j["left_topology_version"] = n.left_topver;
    nodes.push_back(j);
  }
  nlohmann::ordered_json cache;
  cache["id"] = kCacheId;
  cache["name"] = "accounts";
  cache["partitions"] = c_.partitions;
  cache["backups"] = c_.backups;
  doc["caches"] = nlohmann::ordered_json::array({cache});
  doc["accounts"] = c_.accounts;
  doc["initial_balance"] = c_.balance;
  auto& versions = doc["topology_versions"] = nlohmann::ordered_json::array();
  for (const auto& tv : topologies_) {
    nlohmann::ordered_json topver;
    topver["version"] = tv.version;
    // A run without faults has one version; the event and clients say what changed.
    if (topologies_.size() > 1) topver["event"] = tv.event;
    auto& servers = topver["servers"] = nlohmann::ordered_json::array();
    for (uint32_t s : tv.servers) servers.push_back(nodes_[s].name);
    if (topologies_.size() > 1) {
      auto& clients = topver["clients"] = nlohmann::ordered_json::array();
      for (uint32_t k : tv.clients) clients.push_back(nodes_[k].name);
    }
    auto& assignment = topver["assignment"] = nlohmann::ordered_json::array();
    for (const auto& a : tv.assignment) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (uint32_t n : a) row.push_back(nodes_[n].name);
      assignment.push_back(row);
    }
    versions.push_back(topver);
  }
  return wal::WriteFileAtomically(c_.out_dir + "/cluster.json", doc.dump(2) + "\n", c_.fsync);
}

std::string ParseFaultSpec(const std::string& spec, std::string* node, FaultTime* when) {
  size_t at = spec.find('@');
  if (at == std::string::npos) return fmt::format("\"{}\": expected {}@WHEN", spec, node ? "NODE" : "");
  if (node != nullptr) {
    *node = spec.substr(0, at);
    if (node->empty()) return fmt::format("\"{}\": no node before @", spec);
  } else if (at != 0) {
    return fmt::format("\"{}\": expected @WHEN", spec);
  }
  std::string w = spec.substr(at + 1);
  double scale = 0;  // ns per unit; 0 = a transaction count
  for (auto [suffix, ns] : {std::pair<const char*, double>{"ms", 1e6}, {"us", 1e3}, {"s", 1e9}}) {
    std::string sx = suffix;
    if (w.size() > sx.size() && w.compare(w.size() - sx.size(), sx.size(), sx) == 0) {
      w.resize(w.size() - sx.size());
      scale = ns;
      break;
    }
  }
  try {
    size_t used = 0;
    if (scale == 0) {
      if (w.empty() || w[0] == '-') throw std::invalid_argument("sign");
      unsigned long long n = std::stoull(w, &used);
      if (used != w.size()) throw std::invalid_argument("trailing");
      *when = FaultTime{false, n, 0};
    } else {
      double v = std::stod(w, &used);
      if (used != w.size() || v < 0 || v > 1e6) throw std::invalid_argument("range");
      *when = FaultTime{true, 0, static_cast<uint64_t>(v * scale)};
    }
  } catch (...) {
    return fmt::format("\"{}\": WHEN must be a transaction count (@5000) or a time (@2.5s, @300ms, @40us)", spec);
  }
  return "";
}

wal::Result<SimSummary> Simulate(const SimConfig& config) {
  Cluster cluster(config);
  return cluster.Run();
}

}  // namespace sim
