// Discovery: events in one total order reaching each node after its own delay (cuts,
// joins, leaves), topology versions, and the cut's initiation and end.
#include "sim/cluster.h"

#include <algorithm>

#include <fmt/format.h>

namespace sim {

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
  if (Blocked()) return;                             // an exchange or a full snapshot comes first
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

}  // namespace sim
