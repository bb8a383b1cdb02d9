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
void Apply(OwnedEntry& e, std::map<std::pair<uint32_t, uint32_t>, Copy>& copies, NodeResult* out) {
  auto c = copies.find({e.cache, e.partition});
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
    auto files = ListPartitionFiles(np.base_dir);
    if (files.empty()) {
      return wal::Status::NotFound(fmt::format("\"{}\" holds no partition files", np.base_dir));
    }
    for (const auto& f : files) {
      auto pf = ReadPartitionFile(f);
      if (!pf.ok()) return pf.status();
    }
    plan.nodes.push_back(std::move(np));
  }
  return plan;
}

wal::Result<NodeResult> RestoreNode(const NodePlan& plan, const ProgressFn& progress) {
  NodeResult out;
  out.node = plan.node;
  std::map<std::pair<uint32_t, uint32_t>, Copy> copies;
  for (const auto& f : ListPartitionFiles(plan.base_dir)) {
    auto pf = ReadPartitionFile(f);
    if (!pf.ok()) return pf.status();
    Copy& c = copies[{pf->cache_id, pf->partition}];
    c.cache = pf->cache_id;
    c.partition = pf->partition;
    c.base_counter = c.highest = pf->lwm;
    for (auto& e : pf->entries) c.data.emplace(std::move(e.key), Value{std::move(e.value), e.counter, false});
  }
  const std::set<wal::TxId> before(plan.before.begin(), plan.before.end());
  const std::set<wal::TxId> after(plan.after.begin(), plan.after.end());
  std::unordered_map<wal::TxId, std::vector<OwnedEntry>, wal::TxIdHash> pending;
  // The side of each transaction still holding a role open here: its first commit placed
  // it (side.h), and its later roles follow.
  std::unordered_map<wal::TxId, cut::Side, wal::TxIdHash> placed;
  cut::TxOrder order;
  order.Start();  // the range begins at a full snapshot: nothing is in flight
  std::vector<wal::RollbackRecord> rollbacks;
  std::string first_error;
  auto files = SegmentsOfRange(plan.node, plan.node_dir + "/wal", plan.from, plan.finish);
  if (!files.ok()) return files.status();
  wal::ReaderOptions ro;
  ro.from = plan.from;
  auto reader = wal::WalReader::OpenFiles(std::move(files).value(), ro, [&](const wal::Issue& i) {
    if (i.IsError() && first_error.empty()) first_error = i.ToString();
  });
  const wal::Record* r = nullptr;
  out.read_from = plan.from;
  uint64_t since_progress = 0;
  bool reached_finish = false;
  auto out_of_order = [&](const wal::Record& rec, const std::string& why) {
    return wal::Status::Corruption(fmt::format("{}: records out of order at {} in the WAL range to replay: {}",
                                               plan.node, rec.ptr.ToString(), why));
  };
  while (reader->Next(&r)) {
    if (!first_error.empty()) break;
    if (!(r->ptr < plan.finish)) {
      reached_finish = true;
      break;
    }
    out.read_to = r->ptr;
    out.wal_bytes += r->size;
    since_progress += r->size;
    if (progress && since_progress > (8u << 20)) {
      progress(plan.node, out.wal_bytes);
      since_progress = 0;
    }
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kData:
        for (const auto& e : a.data.entries) {
          if (std::string why = order.OnWrite(e.xid); !why.empty()) return out_of_order(*r, why);
          pending[e.xid].push_back({e.cache_id, e.partition, e.counter, e.op == wal::EntryOp::kDelete,
                                    std::string(e.key), std::string(e.value)});
        }
        break;
      case wal::RecordType::kTx: {
        const wal::TxId& x = a.tx.xid;
        if (a.tx.state == wal::TxState::kPrepared) {
          (void)order.OnPrepared(x);
          break;
        }
        if (std::string why = order.OnFinal(x, wal::TxStateName(a.tx.state)); !why.empty()) return out_of_order(*r, why);
        auto it = pending.find(x);
        if (a.tx.state == wal::TxState::kRolledBack) {
          if (it != pending.end()) pending.erase(it);
          if (!order.IsOpen(x)) placed.erase(x);
          break;
        }
        auto known = placed.find(x);
        const cut::Side side =
            known != placed.end()
                ? known->second
                : cut::SideOfCommit(cut::RegionOf(r->ptr, plan.start, plan.finish), [&] { return before.count(x) != 0; },
                                    [&] { return after.count(x) != 0; });
        if (order.IsOpen(x)) {
          placed.emplace(x, side);
        } else if (known != placed.end()) {
          placed.erase(known);
        }
        if (side == cut::Side::kAfter) {
          ++out.txs_skipped;
          if (it != pending.end()) pending.erase(it);
          break;
        }
        ++out.txs_applied;
        if (it == pending.end()) break;
        for (auto& e : it->second) Apply(e, copies, &out);
        pending.erase(it);
        break;
      }
      case wal::RecordType::kRollback:
        rollbacks.push_back(a.rollback);
        break;
      default:
        break;
    }
  }
  if (!first_error.empty()) {
    return wal::Status::Corruption(fmt::format("{}: the WAL range to replay is damaged: {}", plan.node, first_error));
  }
  if (!reached_finish) {
    return wal::Status::Corruption(fmt::format("{}: the WAL ends before the cut's Finish record at {}", plan.node,
                                               plan.finish.ToString()));
  }
  for (auto& [id, copy] : copies) {
    // The restored counter is the highest write applied (or the base's). Rollbacks close
    // ranges below it; above it they are dropped, or copies that logged the rollback
    // before the cut and copies that logged it after would disagree.
    CounterTracker t(copy.base_counter, copy.base_counter);
    for (uint64_t c : copy.applied) {
      if (c > copy.base_counter) (void)t.Update(c - 1, 1);
    }
    for (const auto& rb : rollbacks) {
      if (rb.cache_id != copy.cache || rb.partition != copy.partition) continue;
      if (rb.start >= copy.highest) continue;
      uint64_t range = std::min(rb.range, copy.highest - rb.start);
      if (t.Update(rb.start, range).ok()) ++out.rollbacks_applied;
    }
    t.RaiseHwm(copy.highest);
    out.gaps_closed += t.Finalize().size();
    PartitionFile pf;
    pf.cache_id = copy.cache;
    pf.partition = copy.partition;
    pf.lwm = pf.hwm = t.lwm();
    pf.entries.reserve(copy.data.size());
    for (auto& [k, v] : copy.data) {
      if (!v.deleted) pf.entries.push_back({k, std::move(v.bytes), v.counter});
    }
    std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
    out.partitions.push_back(std::move(pf));
  }
  if (progress) progress(plan.node, out.wal_bytes);
  return out;
}

}  // namespace recovery
