// The simulated cluster: set-up, the event loop and its dispatch.
#include "sim/cluster.h"

#include <algorithm>
#include <filesystem>
#include <functional>

#include <fmt/format.h>
#include <xxhash.h>

namespace sim {

void NodeCutListener::WriteStart(const wal::CutStartRecord& r) { cluster_->OnWriteStart(node_, r); }

void NodeCutListener::WriteFinish(const wal::CutFinishRecord& r) { cluster_->OnWriteFinish(node_, r); }

void NodeCutListener::CutFailed(const Uuid& id, const std::string& reason) { cluster_->OnCutFailed(node_, id, reason); }

namespace {

uint64_t RendezvousScore(uint32_t partition, const Uuid& node) {
  uint64_t buf[3] = {partition, node.hi, node.lo};
  return XXH3_64bits(buf, sizeof(buf));
}

}  // namespace

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
    key_partition_[a] = static_cast<uint32_t>(XXH3_64bits(key_name_[a].data(), key_name_[a].size()) % c_.partitions);
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

wal::Result<SimSummary> Simulate(const SimConfig& config) {
  Cluster cluster(config);
  return cluster.Run();
}

}  // namespace sim
