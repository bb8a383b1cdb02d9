#include "recovery/restore.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "libwal/wal_reader.h"
#include "libcut/side.h"
#include "libcut/tx_order.h"
#include "recovery/counter_tracker.h"
#include "recovery/snapshot_file.h"

namespace recovery {
namespace fs = std::filesystem;

namespace {

struct OwnedEntry {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t counter = 0;
  bool remove = false;
  std::string key, value;
};

// A key's latest write on a copy. A DELETE stays as a tombstone, with its counter, until
// the copy is written out: an older write replayed after it must not bring the key back.
struct Value {
  std::string bytes;
  uint64_t counter = 0;
  bool deleted = false;
};

struct Copy {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t base_counter = 0;
  uint64_t highest = 0;
  std::vector<uint64_t> applied;   // counters of the writes replayed
  std::unordered_map<std::string, Value> data;
};

// The pointer of the base snapshot's record on `node`, from its snapshot.json, which
// must be the snapshot's own (its name and node).
wal::Result<wal::Pointer> SnapshotPointer(const std::string& base_dir, const std::string& name, const std::string& node) {
  auto meta = ReadSnapshotFile(base_dir);
  if (!meta.ok()) return meta.status();
  if (meta->name != name || meta->node != node) {
    return wal::Status::Corruption(fmt::format("\"{}/{}\" describes snapshot \"{}\" of {}, not \"{}\" of {}", base_dir,
                                               kSnapshotFileName, meta->name, meta->node, name, node));
  }
  return meta->pointer;
}

// Applies one committed write to its copy: only if newer than what the copy holds (a
// backup may log two transactions on one key in either order). A copy this node did
// not hold in the base is not written.
void Apply(OwnedEntry& e, std::unordered_map<uint64_t, Copy>& copies, NodeResult* out) {
  auto c = copies.find(PackedCopyKey(e.cache, e.partition));
  if (c == copies.end()) return;
  Copy& copy = c->second;
  ++out->entries;
  copy.applied.push_back(e.counter);
  copy.highest = std::max(copy.highest, e.counter);
  auto d = copy.data.find(e.key);
  if (d != copy.data.end() && d->second.counter >= e.counter) return;
  Value v{e.remove ? std::string() : std::move(e.value), e.counter, e.remove};
  if (d != copy.data.end()) {
    d->second = std::move(v);
  } else {
    copy.data.emplace(std::move(e.key), std::move(v));
  }
}

}  // namespace

wal::Status CheckBase(const RestorePlan& plan) {
  for (const auto& n : plan.nodes) {
    for (const auto& f : ListPartitionFiles(n.base_dir)) {
      auto pf = ReadPartitionFile(f);
      if (!pf.ok()) return pf.status();
    }
  }
  return wal::Status::Ok();
}

wal::Result<std::vector<wal::SegmentFile>> SegmentsOfRange(const std::string& node, const std::string& wal_dir,
                                                           const wal::Pointer& from, const wal::Pointer& to) {
  auto files = wal::ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  std::vector<wal::SegmentFile> out;
  uint64_t next = from.segment;
  for (auto& f : *files) {
    if (f.index < from.segment || f.index > to.segment) continue;
    if (f.index + 1 == next) {  // a second file of the index just taken: the reader compares them
      out.push_back(std::move(f));
      continue;
    }
    if (f.index != next) break;
    out.push_back(std::move(f));
    ++next;
  }
  if (next <= to.segment) {
    return wal::Status::Corruption(fmt::format("{}: segment {} of the WAL range {} to {} is missing from \"{}\"", node,
                                               next, from.ToString(), to.ToString(), wal_dir));
  }
  return out;
}

wal::Result<RestorePlan> PlanRestore(const std::string& cluster_dir,
                                     const std::vector<cut::NodeIndex>& indexes,
                                     const cut::ClusterReport& report, size_t cut_index,
                                     const std::vector<std::string>& only_nodes) {
  const cut::CutReport& c = report.cuts.at(cut_index);
  if (c.status != cut::CutStatus::kConsistent) {
    return wal::Status::InvalidArgument(fmt::format("cut {} is {}: {}", c.id.ToString(),
                                                    cut::CutStatusName(c.status), c.reason));
  }
  RestorePlan plan;
  plan.cut = c.id;
  plan.increment = c.increment.value_or(0);
  plan.base = c.base;
  plan.finish_ts = c.finish_ts;
  for (const auto& want : only_nodes) {
    if (std::none_of(indexes.begin(), indexes.end(), [&](const cut::NodeIndex& n) { return n.node == want; })) {
      return wal::Status::NotFound(fmt::format("no node \"{}\" in \"{}\"", want, cluster_dir));
    }
    if (std::none_of(c.nodes.begin(), c.nodes.end(), [&](const cut::CutNodeRow& row) { return row.node == want; })) {
      return wal::Status::NotFound(fmt::format("{} takes no part in cut {}: it does not hold its base snapshot \"{}\"",
                                               want, c.id.ToString(), c.base));
    }
  }
  for (const auto& n : indexes) {
    if (!only_nodes.empty() && std::find(only_nodes.begin(), only_nodes.end(), n.node) == only_nodes.end()) {
      continue;
    }
    // Only the cut's baseline: a server that left before its base snapshot has no part.
    if (std::none_of(c.nodes.begin(), c.nodes.end(), [&](const cut::CutNodeRow& row) { return row.node == n.node; })) {
      continue;
    }
    const cut::CutOnNode* on = nullptr;
    for (const auto& k : n.cuts) {
      if (k.id == c.id) on = &k;
    }
    if (on == nullptr || !on->has_start || !on->has_finish) {
      return wal::Status::InvalidArgument(fmt::format("{} lacks the records of cut {}", n.node, c.id.ToString()));
    }
    NodePlan np;
    np.node = n.node;
    np.node_dir = cluster_dir + "/" + n.node;
    np.base_dir = np.node_dir + "/snapshots/" + on->base;
    plan.topology_version = std::max(plan.topology_version, on->topology_version);
    np.start = on->start;
    np.finish = on->finish;
    np.before = on->before;
    np.after = on->after;
    auto ptr = SnapshotPointer(np.base_dir, on->base, n.node);
    if (!ptr.ok()) return ptr.status();
    bool in_wal = false;
    for (const auto& s : n.snapshots) in_wal |= s.name == on->base && s.at == *ptr;
    if (!in_wal) {
      return wal::Status::Corruption(fmt::format(
          "{}: the ClusterSnapshotRecord of \"{}\" is not at {} in the WAL, as snapshot.json says", n.node,
          on->base, ptr->ToString()));
    }
    np.from = *ptr;
    for (size_t e = 0; e < n.read_errors.size() && e < n.read_error_at.size(); ++e) {
      if (!(n.read_error_at[e] < np.from) && !(np.finish < n.read_error_at[e])) {
        return wal::Status::Corruption(fmt::format("{}: the WAL range {} to {} is damaged: {}", n.node,
                                                   np.from.ToString(), np.finish.ToString(), n.read_errors[e]));
      }
    }
    auto range = SegmentsOfRange(n.node, np.node_dir + "/wal", np.from, np.finish);
    if (!range.ok()) return range.status();
    // Their bytes are read (and verified) once, by the restore itself, or by CheckBase.
    if (ListPartitionFiles(np.base_dir).empty()) {
      return wal::Status::NotFound(fmt::format("\"{}\" holds no partition files", np.base_dir));
    }
    plan.nodes.push_back(std::move(np));
  }
  return plan;
}

namespace {

// One node's replay: its base copies loaded, the WAL range from the base snapshot to the
// cut's Finish record applied (the Before side only), and the copies finalized.
class NodeReplay {
 public:
  NodeReplay(const NodePlan& plan, const ProgressFn& progress)
      : plan_(plan), progress_(progress), before_(plan.before.begin(), plan.before.end()),
        after_(plan.after.begin(), plan.after.end()) {
    out_.node = plan.node;
    order_.Start();  // the range begins at a full snapshot: nothing is in flight
  }

  wal::Status LoadBase();
  wal::Status Replay();
  // The restored copies, as partition files.
  NodeResult Finish();

 private:
  wal::Status OutOfOrder(const wal::Record& r, const std::string& why) const {
    return wal::Status::Corruption(fmt::format("{}: records out of order at {} in the WAL range to replay: {}",
                                               plan_.node, r.ptr.ToString(), why));
  }
  wal::Status OnData(const wal::Record& r);
  wal::Status OnTx(const wal::Record& r);
  cut::Side SideOf(const wal::TxId& x, const wal::Pointer& commit);
  void Progress(uint32_t size);

  const NodePlan& plan_;
  const ProgressFn& progress_;
  const std::set<wal::TxId> before_, after_;
  NodeResult out_;
  std::unordered_map<uint64_t, Copy> copies_;  // by PackedCopyKey
  std::unordered_map<wal::TxId, std::vector<OwnedEntry>, wal::TxIdHash> pending_;
  // The entries of the transaction written last (a DATA record holds one transaction's
  // writes, often several): found once per run of them.
  wal::TxId last_xid_;
  std::vector<OwnedEntry>* last_pending_ = nullptr;
  // The side of each transaction still holding a role open here: its first commit placed
  // it (side.h), and its later roles follow.
  std::unordered_map<wal::TxId, cut::Side, wal::TxIdHash> placed_;
  cut::TxOrder order_;
  std::vector<wal::RollbackRecord> rollbacks_;
  uint64_t since_progress_ = 0;
};

wal::Status NodeReplay::LoadBase() {
  for (const auto& f : ListPartitionFiles(plan_.base_dir)) {
    auto pf = ReadPartitionFile(f);
    if (!pf.ok()) return pf.status();
    Copy& c = copies_[PackedCopyKey(pf->cache_id, pf->partition)];
    c.cache = pf->cache_id;
    c.partition = pf->partition;
    c.base_counter = c.highest = pf->lwm;
    for (auto& e : pf->entries) c.data.emplace(std::move(e.key), Value{std::move(e.value), e.counter, false});
  }
  return wal::Status::Ok();
}

wal::Status NodeReplay::Replay() {
  auto files = SegmentsOfRange(plan_.node, plan_.node_dir + "/wal", plan_.from, plan_.finish);
  if (!files.ok()) return files.status();
  std::string first_error;
  wal::ReaderOptions ro;
  ro.from = plan_.from;
  ro.light = true;  // TX and DATA records viewed in place, as strictly checked
  auto reader = wal::WalReader::OpenFiles(std::move(files).value(), ro, [&](const wal::Issue& i) {
    if (i.IsError() && first_error.empty()) first_error = i.ToString();
  });
  out_.read_from = plan_.from;
  bool reached_finish = false;
  const wal::Record* r = nullptr;
  while (reader->Next(&r) && first_error.empty()) {
    if (!(r->ptr < plan_.finish)) {
      reached_finish = true;
      break;
    }
    out_.read_to = r->ptr;
    Progress(r->size);
    wal::Status s;
    if (r->type == static_cast<uint8_t>(wal::RecordType::kData)) {
      s = OnData(*r);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      s = OnTx(*r);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kRollback)) {
      rollbacks_.push_back(r->decoded.rollback);
    }
    if (!s.ok()) return s;
  }
  if (!first_error.empty()) {
    return wal::Status::Corruption(fmt::format("{}: the WAL range to replay is damaged: {}", plan_.node, first_error));
  }
  if (!reached_finish) {
    return wal::Status::Corruption(fmt::format("{}: the WAL ends before the cut's Finish record at {}", plan_.node,
                                               plan_.finish.ToString()));
  }
  return wal::Status::Ok();
}

void NodeReplay::Progress(uint32_t size) {
  out_.wal_bytes += size;
  since_progress_ += size;
  if (progress_ && since_progress_ > (8u << 20)) {
    progress_(plan_.node, out_.wal_bytes);
    since_progress_ = 0;
  }
}

// A transaction's writes wait for its final record.
wal::Status NodeReplay::OnData(const wal::Record& r) {
  wal::DataEntryCursor entries(r.data);
  wal::DataEntry e;
  while (entries.Next(&e)) {
    if (std::string why = order_.OnWrite(e.xid); !why.empty()) return OutOfOrder(r, why);
    if (last_pending_ == nullptr || e.xid != last_xid_) {
      last_xid_ = e.xid;
      last_pending_ = &pending_[e.xid];  // elements of an unordered_map do not move
    }
    last_pending_->push_back({e.cache_id, e.partition, e.counter, e.op == wal::EntryOp::kDelete, std::string(e.key),
                               std::string(e.value)});
  }
  return wal::Status::Ok();
}

// The side of transaction `x` committing at `commit`: placed by its first commit here,
// kept while it has a role open.
cut::Side NodeReplay::SideOf(const wal::TxId& x, const wal::Pointer& commit) {
  auto known = placed_.find(x);
  const cut::Side side =
      known != placed_.end()
          ? known->second
          : cut::SideOfCommit(cut::RegionOf(commit, plan_.start, plan_.finish), [&] { return before_.count(x) != 0; },
                              [&] { return after_.count(x) != 0; });
  if (order_.IsOpen(x)) {
    placed_.emplace(x, side);
  } else if (known != placed_.end()) {
    placed_.erase(known);
  }
  return side;
}

wal::Status NodeReplay::OnTx(const wal::Record& r) {
  const wal::TxView& t = r.tx;
  const wal::TxId& x = t.xid;
  if (t.state == wal::TxState::kPrepared) {
    (void)order_.OnPrepared(x);
    return wal::Status::Ok();
  }
  const bool ignite_rollback = wal::IsIgnite(r.format) && t.state == wal::TxState::kRolledBack;
  if (std::string why = order_.OnFinal(x, wal::TxStateName(t.state), ignite_rollback); !why.empty()) {
    return OutOfOrder(r, why);
  }
  auto it = pending_.find(x);
  if (it != pending_.end() && last_pending_ == &it->second) last_pending_ = nullptr;  // erased below
  if (t.state == wal::TxState::kRolledBack) {
    if (it != pending_.end()) pending_.erase(it);
    if (!order_.IsOpen(x)) placed_.erase(x);
    return wal::Status::Ok();
  }
  if (SideOf(x, r.ptr) == cut::Side::kAfter) {
    ++out_.txs_skipped;
  } else {
    ++out_.txs_applied;
    if (it != pending_.end()) {
      for (auto& e : it->second) Apply(e, copies_, &out_);
    }
  }
  if (it != pending_.end()) pending_.erase(it);
  return wal::Status::Ok();
}

NodeResult NodeReplay::Finish() {
  std::vector<uint64_t> keys;  // the partition files in (cache, partition) order
  for (const auto& kv : copies_) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  for (uint64_t key : keys) {
    Copy& copy = copies_.at(key);
    // The restored counter is the highest write applied (or the base's). Rollbacks close
    // ranges below it; above it they are dropped, or copies that logged the rollback
    // before the cut and copies that logged it after would disagree.
    CounterTracker t(copy.base_counter, copy.base_counter);
    for (uint64_t c : copy.applied) {
      if (c > copy.base_counter) (void)t.Update(c - 1, 1);
    }
    for (const auto& rb : rollbacks_) {
      if (rb.cache_id != copy.cache || rb.partition != copy.partition) continue;
      if (rb.start >= copy.highest) continue;
      uint64_t range = std::min(rb.range, copy.highest - rb.start);
      if (t.Update(rb.start, range).ok()) ++out_.rollbacks_applied;
    }
    t.RaiseHwm(copy.highest);
    out_.gaps_closed += t.Finalize().size();
    PartitionFile pf;
    pf.cache_id = copy.cache;
    pf.partition = copy.partition;
    pf.lwm = pf.hwm = t.lwm();
    pf.entries.reserve(copy.data.size());
    for (auto& [k, v] : copy.data) {
      if (!v.deleted) pf.entries.push_back({k, std::move(v.bytes), v.counter});
    }
    std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
    out_.partitions.push_back(std::move(pf));
  }
  copies_.clear();
  if (progress_) progress_(plan_.node, out_.wal_bytes);
  return std::move(out_);
}

}  // namespace

wal::Result<NodeResult> RestoreNode(const NodePlan& plan, const ProgressFn& progress) {
  NodeReplay replay(plan, progress);
  WAL_RETURN_IF_ERROR(replay.LoadBase());
  WAL_RETURN_IF_ERROR(replay.Replay());
  return replay.Finish();
}

}  // namespace recovery
