// The network: message delays, wrapping with the running cut, FIFO channels, and the
// delivery of a message to its handler (held back until its topology version is seen).
#include "sim/cluster.h"

#include <algorithm>

namespace sim {

const char* MsgTypeName(MsgType t) {
  static constexpr const char* kNames[] = {"LockRequest",        "LockResponse",        "LockRelease",
                                           "NearPrepareRequest", "NearPrepareResponse", "DhtPrepareRequest",
                                           "DhtPrepareResponse", "NearFinishRequest",   "NearFinishResponse",
                                           "DhtFinishRequest",   "CutFinished",         "CutFailed"};
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

uint64_t Cluster::Delay(MsgType t) {
  auto it = c_.delay_mean_by_type_us.find(t);
  double mean = it != c_.delay_mean_by_type_us.end() ? it->second : c_.delay_mean_us;
  double drawn = c_.constant_delays ? mean : rng_.Exponential(mean);
  return static_cast<uint64_t>((c_.delay_min_us + drawn) * kNsPerUs);
}

void Cluster::Send(MsgType t, uint32_t from, uint32_t to, uint32_t tx, uint32_t group, bool flag, const Uuid& stamp) {
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

void Cluster::Unpark(uint32_t n) {
  std::vector<Event> parked = std::move(nodes_[n].parked);
  nodes_[n].parked.clear();
  for (Event e : parked) {
    e.time = now_;
    Push(e);
  }
}

}  // namespace sim
