#include "recovery/restore.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libwal/wal_reader.h"
#include "recovery/counter_tracker.h"

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

struct Copy {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t base_counter = 0;
  uint64_t highest = 0;
  std::vector<uint64_t> applied;   // counters of the writes replayed
  std::unordered_map<std::string, std::pair<std::string, uint64_t>> data;  // key -> value, counter
};

wal::Result<wal::Pointer> SnapshotPointer(const std::string& base_dir) {
  std::ifstream in(base_dir + "/snapshot.json");
  if (!in) return wal::Status::NotFound(fmt::format("\"{}/snapshot.json\" is missing", base_dir));
  auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("pointer") || !doc["pointer"].is_string()) {
    return wal::Status::Corruption(fmt::format("\"{}/snapshot.json\" is not valid snapshot metadata", base_dir));
  }
  auto p = wal::Pointer::Parse(doc["pointer"].get<std::string>());
  if (!p) return wal::Status::Corruption(fmt::format("\"{}/snapshot.json\": bad pointer", base_dir));
  return *p;
}

}  // namespace

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
    auto ptr = SnapshotPointer(np.base_dir);
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
    for (auto& e : pf->entries) c.data.emplace(std::move(e.key), std::make_pair(std::move(e.value), e.counter));
  }
  const std::set<wal::TxId> before(plan.before.begin(), plan.before.end());
  const std::set<wal::TxId> after(plan.after.begin(), plan.after.end());
  std::unordered_map<wal::TxId, std::vector<OwnedEntry>, wal::TxIdHash> pending;
  std::vector<wal::RollbackRecord> rollbacks;
  std::string first_error;
  wal::ReaderOptions ro;
  ro.from = plan.from;
  auto reader = wal::WalReader::OpenDirectory(plan.node_dir + "/wal", ro, [&](const wal::Issue& i) {
    if (i.IsError() && first_error.empty()) first_error = i.ToString();
  });
  if (!reader.ok()) return reader.status();
  const wal::Record* r = nullptr;
  out.read_from = plan.from;
  uint64_t since_progress = 0;
  bool reached_finish = false;
  while ((*reader)->Next(&r)) {
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
          if (e.xid.IsNull()) continue;
          pending[e.xid].push_back({e.cache_id, e.partition, e.counter, e.op == wal::EntryOp::kDelete,
                                    std::string(e.key), std::string(e.value)});
        }
        break;
      case wal::RecordType::kTx: {
        if (a.tx.state == wal::TxState::kRolledBack) {
          pending.erase(a.tx.xid);
          break;
        }
        if (a.tx.state != wal::TxState::kCommitted && a.tx.state != wal::TxState::kUnknown) break;
        // The seed rules: Before = committed before Start and not in `after`, or
        // between Start and Finish and in `before`.
        const bool apply = r->ptr < plan.start ? after.count(a.tx.xid) == 0 : before.count(a.tx.xid) != 0;
        auto it = pending.find(a.tx.xid);
        if (!apply) {
          ++out.txs_skipped;
          if (it != pending.end()) pending.erase(it);
          break;
        }
        ++out.txs_applied;
        if (it == pending.end()) break;
        for (auto& e : it->second) {
          auto c = copies.find({e.cache, e.partition});
          if (c == copies.end()) continue;  // a copy this node did not hold in the base
          Copy& copy = c->second;
          ++out.entries;
          copy.applied.push_back(e.counter);
          copy.highest = std::max(copy.highest, e.counter);
          // A copy applies a key write only if it is newer than what it holds.
          auto d = copy.data.find(e.key);
          if (d != copy.data.end() && d->second.second >= e.counter) continue;
          if (e.remove) {
            if (d != copy.data.end()) copy.data.erase(d);
          } else {
            copy.data[e.key] = {std::move(e.value), e.counter};
          }
        }
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
    for (auto& [k, v] : copy.data) pf.entries.push_back({k, v.first, v.second});
    std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
    out.partitions.push_back(std::move(pf));
  }
  if (progress) progress(plan.node, out.wal_bytes);
  return out;
}

}  // namespace recovery
