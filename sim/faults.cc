// Faults: server and client crashes, client joins, and the run resuming after them.
#include "sim/cluster.h"

#include <algorithm>

#include <fmt/format.h>

namespace sim {

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

}  // namespace sim
