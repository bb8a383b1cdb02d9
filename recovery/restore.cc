#include "recovery/restore.h"

#include <algorithm>
#include <array>
#include <deque>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "libcut/commit_place.h"
#include "libcut/flat_table.h"
#include "libcut/hash.h"
#include "libcut/side.h"
#include "libcut/tx_order.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_record.h"
#include "libwal/wal_reader.h"
#include "recovery/counter_tracker.h"
#include "recovery/ignite_restore.h"
#include "recovery/snapshot_file.h"

namespace recovery {
namespace fs = std::filesystem;

namespace {

// A write waiting for its transaction's final record: its key and value are bytes of
// its list's arena (the record they were read from is given back as the reading moves on).
struct HeldEntry {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t counter = 0;
  bool remove = false;
  uint32_t key_len = 0;
  uint32_t value_len = 0;
  size_t at = 0;  // the key's first byte in the arena; the value follows it
};

// One transaction's held writes.
struct HeldList {
  std::vector<HeldEntry> entries;
  std::string bytes;
  // Emptied for the next transaction; a large one's bytes are given back rather than
  // kept in the pool for the rest of the replay.
  void clear() {
    entries.clear();
    if (bytes.capacity() > kKeep) {
      std::string().swap(bytes);
    } else {
      bytes.clear();
    }
  }
  static constexpr size_t kKeep = 1 << 20;
  // Appends a write of walcut's WAL.
  void Add(uint32_t cache, uint32_t partition, uint64_t counter, bool remove, std::string_view key,
           std::string_view value) {
    HeldEntry e{
        cache,       partition, counter, remove, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size()),
        bytes.size()};
    bytes.append(key);
    bytes.append(value);
    entries.push_back(e);
  }
  // Appends a write of Ignite's: its key and value as a partition file holds cache
  // objects, each its type byte and then its bytes (two objects of one key's bytes but
  // different types are different keys); a removal or a null value has no value.
  void AddIgnite(uint32_t cache, uint32_t partition, uint64_t counter, bool remove, int8_t key_type,
                 std::string_view key, const int8_t* value_type, std::string_view value) {
    HeldEntry e{cache, partition, counter, remove, static_cast<uint32_t>(1 + key.size()), 0, bytes.size()};
    bytes.push_back(static_cast<char>(key_type));
    bytes.append(key);
    if (value_type != nullptr) {
      e.value_len = static_cast<uint32_t>(1 + value.size());
      bytes.push_back(static_cast<char>(*value_type));
      bytes.append(value);
    }
    entries.push_back(e);
  }
  std::string_view Key(const HeldEntry& e) const { return {bytes.data() + e.at, e.key_len}; }
  std::string_view Value(const HeldEntry& e) const { return {bytes.data() + e.at + e.key_len, e.value_len}; }
};

// A copy's keys are found by the bytes of a held write, with no string made to look.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
};
struct KeyEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
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
  // The counters of the writes replayed, from the base's: fed as each is applied, so
  // that what is kept is the ranges still open, not a counter per write.
  CounterTracker counters;
  std::unordered_map<std::string, Value, KeyHash, KeyEqual> data;
};

// The pointer of the base snapshot's record on `node`, from its snapshot.json, which
// must be the snapshot's own (its name and node).
wal::Result<wal::Pointer> SnapshotPointer(const std::string& base_dir, const std::string& name,
                                          const std::string& node) {
  auto meta = ReadSnapshotFile(base_dir);
  if (!meta.ok()) return meta.status();
  if (meta->name != name || meta->node != node) {
    return wal::Status::Corruption(fmt::format("\"{}/{}\" describes snapshot \"{}\" of {}, not \"{}\" of {}", base_dir,
                                               kSnapshotFileName, meta->name, meta->node, name, node));
  }
  return meta->pointer;
}

// A node's copies by PackedCopyKey: a replay finds one for every write, through an
// index of open addressing over copies that never move.
class Copies {
 public:
  Copy* Find(uint64_t key) {
    const Slot* s = index_.Find(key);
    return s != nullptr ? s->copy : nullptr;
  }
  // The copy of (cache, partition), made empty when there is none.
  Copy& Get(uint32_t cache, uint32_t partition) {
    Slot& s = *index_.Upsert(PackedCopyKey(cache, partition)).first;
    if (s.copy == nullptr) {
      s.copy = &copies_.emplace_back();
      s.copy->cache = cache;
      s.copy->partition = partition;
    }
    return *s.copy;
  }
  // Every copy, in (cache, partition) order.
  std::vector<Copy*> Sorted() {
    std::vector<Copy*> out;
    for (Copy& c : copies_) out.push_back(&c);
    std::sort(out.begin(), out.end(), [](const Copy* x, const Copy* y) {
      return PackedCopyKey(x->cache, x->partition) < PackedCopyKey(y->cache, y->partition);
    });
    return out;
  }
  void clear() {
    index_.Reset();
    copies_.clear();
  }

 private:
  struct Slot {
    uint64_t key = 0;
    Copy* copy = nullptr;
  };
  struct Traits {
    using Key = uint64_t;
    static uint64_t Hash(uint64_t k) { return cut::Mix64(k); }
    static uint64_t KeyOf(const Slot& s) { return s.key; }
    static void Init(Slot* s, uint64_t k) { s->key = k; }
  };
  cut::FlatTable<Slot, Traits> index_;
  std::deque<Copy> copies_;
};

// Applies one committed write to its copy: only if newer than what the copy holds (a
// backup may log two transactions on one key in either order). A copy this node did
// not hold in the base is not written, unless `create` (there is no base: Ignite's WAL,
// replayed from its first record, where a node's copies are those it wrote).
void Apply(const HeldEntry& e, const HeldList& list, Copies& copies, bool create, NodeResult* out) {
  Copy* c = copies.Find(PackedCopyKey(e.cache, e.partition));
  if (c == nullptr) {
    if (!create) return;
    c = &copies.Get(e.cache, e.partition);
  }
  Copy& copy = *c;
  ++out->entries;
  if (e.counter > copy.base_counter) (void)copy.counters.Update(e.counter - 1, 1);
  copy.highest = std::max(copy.highest, e.counter);
  const std::string_view key = list.Key(e);
  const std::string_view value = e.remove ? std::string_view() : list.Value(e);
  auto d = copy.data.find(key);
  if (d == copy.data.end()) {
    copy.data.emplace(std::string(key), Value{std::string(value), e.counter, e.remove});
    return;
  }
  if (d->second.counter >= e.counter) return;
  d->second.bytes.assign(value);  // in the string's own buffer when it fits
  d->second.counter = e.counter;
  d->second.deleted = e.remove;
}

// Each write of `list` in turn.
void ApplyAll(const HeldList& list, Copies& copies, bool create, NodeResult* out) {
  for (const HeldEntry& e : list.entries) Apply(e, list, copies, create, out);
}

}  // namespace

wal::Status CheckBase(const RestorePlan& plan) {
  for (const auto& n : plan.nodes) {
    if (!n.ignite_store.empty()) {
      WAL_RETURN_IF_ERROR(CheckIgniteBase(n));
      continue;
    }
    for (const auto& f : ListPartitionFiles(n.base_dir)) {
      auto pf = ReadPartitionFile(f);
      if (!pf.ok()) return pf.status();
    }
  }
  return wal::Status::Ok();
}

wal::Result<std::vector<wal::SegmentFile>> SegmentsOfRange(const std::string& node, const wal::WalLocation& wal_dir,
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
                                               next, from.ToString(), to.ToString(), wal_dir.ToString()));
  }
  return out;
}

namespace {

// The plan's part that does not depend on the format: the cut consistent, every --node a
// node of the cut, and for each node of the cut's baseline (or of --node), its records
// of the cut; `place` then sets where its replay begins (from, base_dir, wal) and may
// refuse. Last, the WAL range from there to the Finish record is checked: free of the
// damage the index found, and its segments all present.
template <typename Place>
wal::Result<RestorePlan> PlanNodes(const std::string& where, const std::vector<cut::NodeIndex>& indexes,
                                   const cut::ClusterReport& report, size_t cut_index,
                                   const std::vector<std::string>& only_nodes, Place&& place) {
  const cut::CutReport& c = report.cuts.at(cut_index);
  if (c.status != cut::CutStatus::kConsistent) {
    return wal::Status::InvalidArgument(
        fmt::format("cut {} is {}: {}", c.id.ToString(), cut::CutStatusName(c.status), c.reason));
  }
  RestorePlan plan;
  plan.cut = c.id;
  plan.increment = c.increment.value_or(0);
  plan.base = c.base;
  plan.finish_ts = c.finish_ts;
  for (const auto& want : only_nodes) {
    if (std::none_of(indexes.begin(), indexes.end(), [&](const cut::NodeIndex& n) { return n.node == want; })) {
      return wal::Status::NotFound(fmt::format("no node \"{}\" in \"{}\"", want, where));
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
    const cut::CutOnNode* on = cut::FindCut(n, c.id);
    if (on == nullptr || !on->has_start || !on->has_finish) {
      return wal::Status::InvalidArgument(fmt::format("{} lacks the records of cut {}", n.node, c.id.ToString()));
    }
    NodePlan np;
    np.node = n.node;
    plan.topology_version = std::max(plan.topology_version, on->topology_version);
    np.start = on->start;
    np.finish = on->finish;
    np.before = on->before;
    np.after = on->after;
    WAL_RETURN_IF_ERROR(place(n, *on, &np));
    for (size_t e = 0; e < n.read_errors.size() && e < n.read_error_at.size(); ++e) {
      if (!(n.read_error_at[e] < np.from) && !(np.finish < n.read_error_at[e])) {
        return wal::Status::Corruption(fmt::format("{}: the WAL range {} to {} is damaged: {}", n.node,
                                                   np.from.ToString(), np.finish.ToString(), n.read_errors[e]));
      }
    }
    // Their bytes are read (and verified) once, by the restore itself.
    auto range = SegmentsOfRange(n.node, np.wal, np.from, np.finish);
    if (!range.ok()) return range.status();
    plan.nodes.push_back(std::move(np));
  }
  return plan;
}

}  // namespace

wal::Result<RestorePlan> PlanRestore(const std::string& cluster_dir, const std::vector<cut::NodeIndex>& indexes,
                                     const cut::ClusterReport& report, size_t cut_index,
                                     const std::vector<std::string>& only_nodes) {
  return PlanNodes(cluster_dir, indexes, report, cut_index, only_nodes,
                   [&](const cut::NodeIndex& n, const cut::CutOnNode& on, NodePlan* np) -> wal::Status {
                     np->node_dir = cluster_dir + "/" + n.node;
                     np->base_dir = np->node_dir + "/snapshots/" + on.base;
                     np->wal = np->node_dir + "/wal";
                     auto ptr = SnapshotPointer(np->base_dir, on.base, n.node);
                     if (!ptr.ok()) return ptr.status();
                     bool in_wal = false;
                     for (const auto& s : n.snapshots) in_wal |= s.name == on.base && s.at == *ptr;
                     if (!in_wal) {
                       return wal::Status::Corruption(fmt::format(
                           "{}: the ClusterSnapshotRecord of \"{}\" is not at {} in the WAL, as snapshot.json says",
                           n.node, on.base, ptr->ToString()));
                     }
                     np->from = *ptr;
                     // The base's partition files are read (and verified) by the restore, or by CheckBase.
                     if (ListPartitionFiles(np->base_dir).empty()) {
                       return wal::Status::NotFound(fmt::format("\"{}\" holds no partition files", np->base_dir));
                     }
                     return wal::Status::Ok();
                   });
}

wal::Result<RestorePlan> PlanIgniteRestore(const std::map<std::string, wal::WalLocation>& wals,
                                           const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report,
                                           size_t cut_index, const std::vector<std::string>& only_nodes) {
  std::string where;
  for (const auto& [node, loc] : wals) where += (where.empty() ? "" : ", ") + node;
  return PlanNodes(
      where, indexes, report, cut_index, only_nodes,
      [&](const cut::NodeIndex& n, const cut::CutOnNode&, NodePlan* np) -> wal::Status {
        auto w = wals.find(n.node);
        if (w == wals.end()) return wal::Status::NotFound(fmt::format("{}: where its WAL lies is not known", n.node));
        np->wal = w->second;
        np->ignite = true;
        np->from = wal::Pointer{0, 0};
        auto files = wal::ListSegments(np->wal);
        if (!files.ok()) return files.status();
        if (files->empty() || files->front().index != 0) {
          return wal::Status::NotFound(fmt::format(
              "{}: its WAL begins at {} in \"{}\", not at segment 0: without the full snapshot's page files, an Ignite "
              "increment is restored by replaying each node's WAL from its first record, so the archive must keep "
              "every segment",
              n.node, files->empty() ? std::string("no segment") : fmt::format("segment {}", files->front().index),
              np->wal.ToString()));
        }
        return wal::Status::Ok();
      });
}

wal::Result<RestorePlan> PlanIgniteSnapshotRestore(
    const std::function<std::string(const std::string& node, const std::string& snapshot)>& snapshot_dirs,
    const std::map<std::string, wal::WalLocation>& live, const std::vector<cut::NodeIndex>& indexes,
    const cut::ClusterReport& report, size_t cut_index, const std::vector<std::string>& only_nodes) {
  std::string where;
  for (const auto& [node, loc] : live) where += (where.empty() ? "" : ", ") + node;
  const cut::CutReport& c = report.cuts.at(cut_index);
  return PlanNodes(where, indexes, report, cut_index, only_nodes,
                   [&](const cut::NodeIndex& n, const cut::CutOnNode&, NodePlan* np) -> wal::Status {
                     auto w = live.find(n.node);
                     if (w == live.end())
                       return wal::Status::NotFound(fmt::format("{}: where its WAL lies is not known", n.node));
                     np->cut_id = c.id;
                     return PlaceIgniteSnapshotNode(snapshot_dirs(n.node, c.base), c.base, c.increment.value_or(0),
                                                    w->second, np);
                   });
}

namespace {

// One node's replay: its base copies loaded, the WAL range from the base snapshot to the
// cut's Finish record applied (the Before side only), and the copies finalized.
class NodeReplay {
 public:
  NodeReplay(const NodePlan& plan, const ProgressFn& progress)
      : plan_(plan),
        progress_(progress),
        before_(plan.before.begin(), plan.before.end()),
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
  void ApplyFree(const wal::DataEntry& e);
  wal::Status OnTx(const wal::Record& r);
  void AtFinish();
  cut::Side SideOf(const wal::TxId& x, const wal::Pointer& commit);
  void Progress(uint32_t size);

  const NodePlan& plan_;
  const ProgressFn& progress_;
  const std::set<wal::TxId> before_, after_;
  NodeResult out_;
  Copies copies_;
  // The writes of each transaction waiting for its final record: lists kept in a pool
  // and reused (a list keeps its capacity), found by transaction.
  struct Pending {
    wal::TxId xid;
    uint32_t list = 0;  // in lists_
  };
  cut::FlatTable<Pending, cut::ByTxId<Pending>> pending_;
  std::vector<HeldList> lists_;
  std::vector<uint32_t> free_lists_;
  // The list of the transaction written last (a DATA record holds one transaction's
  // writes, often several): found once per run of them.
  static constexpr uint32_t kNoList = UINT32_MAX;
  wal::TxId last_xid_;
  uint32_t last_list_ = kNoList;
  // The side of each transaction still holding a role open here: its first commit placed
  // it (side.h), and its later roles follow.
  struct Placed {
    wal::TxId xid;
    cut::Side side = cut::Side::kBefore;
  };
  cut::FlatTable<Placed, cut::ByTxId<Placed>> placed_;
  cut::CommitPlacer placer_;  // where the format places commits at their entries (Ignite's)
  // The rules of the format of the records read (the reading's last: one node's WAL is of
  // one format).
  const wal::FormatRules* rules_ = &wal::RulesOf(wal::SegmentFormat::kWalcut);
  cut::TxOrder order_;
  wal::DataEntry entry_;  // each DATA record's entries in turn (made once: made, it is zeroed)
  std::vector<wal::RollbackRecord> rollbacks_;
  uint64_t since_progress_ = 0;
};

wal::Status NodeReplay::LoadBase() {
  if (plan_.base_dir.empty() || plan_.ignite) return wal::Status::Ok();  // Ignite's WAL: from its first record
  for (const auto& f : ListPartitionFiles(plan_.base_dir)) {
    auto pf = ReadPartitionFile(f);
    if (!pf.ok()) return pf.status();
    if (!plan_.Selected(pf->cache_id, pf->partition)) continue;
    Copy& c = copies_.Get(pf->cache_id, pf->partition);
    c.base_counter = c.highest = pf->lwm;
    c.counters = CounterTracker(pf->lwm, pf->lwm);
    for (auto& e : pf->entries) c.data.emplace(std::move(e.key), Value{std::move(e.value), e.counter, false});
  }
  return wal::Status::Ok();
}

wal::Status NodeReplay::Replay() {
  auto files = SegmentsOfRange(plan_.node, plan_.wal, plan_.from, plan_.finish);
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
    rules_ = &wal::RulesOf(r->format);
    Progress(r->size);
    wal::Status s;
    if (r->type == static_cast<uint8_t>(wal::RecordType::kData)) {
      s = OnData(*r);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      s = OnTx(*r);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kRollback)) {
      rollbacks_.push_back(r->decoded.rollback);
    } else if (rules_->commit_placed_at_entries && cut::CommitPlacer::IsCutRecord(r->type)) {
      placer_.OnCutRecord(r->ptr);
    } else if (plan_.ignite && wal::IsIgniteOtherDataRecord(r->type)) {
      return wal::Status::NotSupported(fmt::format(
          "{}: {} at {} holds writes walcut cannot apply (only DATA_RECORD_V2 is read): the restore would miss them",
          plan_.node, wal::IgniteRecordTypeName(r->type), r->ptr.ToString()));
    }
    if (!s.ok()) return s;
  }
  if (!first_error.empty()) {
    return wal::Status::Corruption(fmt::format("{}: the WAL range to replay is damaged: {}", plan_.node, first_error));
  }
  if (!reached_finish) {
    return wal::Status::Corruption(
        fmt::format("{}: the WAL ends before the cut's Finish record at {}", plan_.node, plan_.finish.ToString()));
  }
  if (rules_->commit_placed_at_entries) AtFinish();
  return wal::Status::Ok();
}

// Where commits are placed at their entries (Apache Ignite's): a transaction whose entries
// the WAL holds before the Finish record and whose COMMITTED record comes after it
// (commit_place.h) is placed by its last entry, as Ignite's restore replays it.
void NodeReplay::AtFinish() {
  placer_.OnCutRecord(plan_.finish);
  pending_.ForEach([&](const Pending& p) {
    if (SideOf(p.xid, placer_.Place(p.xid, plan_.finish)) != cut::Side::kBefore) return;
    ++out_.txs_applied;
    ApplyAll(lists_[p.list], copies_, plan_.ignite, &out_);
    lists_[p.list].clear();
  });
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
  wal::DataEntry& e = entry_;
  while (entries.Next(&e)) {
    if (plan_.ignite && e.partition == UINT32_MAX) {
      return wal::Status::NotSupported(fmt::format(
          "{}: an entry of cache {} at {} has no partition (-1: Ignite did not know it, and its restore asks the "
          "cache's affinity, which walcut cannot)",
          plan_.node, static_cast<int32_t>(e.cache_id), r.ptr.ToString()));
    }
    if (e.xid.IsNull() && wal::RulesOf(r.format).writes_without_transaction) {
      // An ATOMIC cache's update or a rebalance's, of no transaction: applied in WAL order
      // until the cut's Start record and not after, as Ignite's restore applies them.
      if (r.ptr < plan_.start && plan_.Selected(e.cache_id, e.partition)) ApplyFree(e);
      continue;
    }
    if (std::string why = order_.OnWrite(e.xid); !why.empty()) return OutOfOrder(r, why);
    if (rules_->commit_placed_at_entries) placer_.OnWrite(e.xid, r.ptr);
    if (!plan_.Selected(e.cache_id, e.partition)) continue;
    if (last_list_ == kNoList || e.xid != last_xid_) {
      last_xid_ = e.xid;
      auto [p, fresh] = pending_.Upsert(e.xid);
      if (fresh) {
        if (free_lists_.empty()) {
          p->list = static_cast<uint32_t>(lists_.size());
          lists_.emplace_back();
        } else {
          p->list = free_lists_.back();
          free_lists_.pop_back();
        }
      }
      last_list_ = p->list;
    }
    HeldList& list = lists_[last_list_];
    if (!plan_.ignite) {
      list.Add(e.cache_id, e.partition, e.counter, e.op == wal::EntryOp::kDelete, e.key, e.value);
      continue;
    }
    // Ignite: a READ or NOOP entry changes nothing; TRANSFORM and RELOAD carry what
    // walcut cannot apply.
    const auto op = static_cast<uint8_t>(e.op);
    if (op == wal::ignite::kOpRead || op == wal::ignite::kOpNoop) continue;
    if (e.op != wal::EntryOp::kCreate && e.op != wal::EntryOp::kUpdate && e.op != wal::EntryOp::kDelete) {
      return wal::Status::NotSupported(fmt::format("{}: an entry of {} at {} is a {} write, which walcut cannot apply",
                                                   plan_.node, e.xid.ToString(), r.ptr.ToString(),
                                                   wal::EntryOpName(e.op)));
    }
    const bool remove = e.op == wal::EntryOp::kDelete;
    const bool valued = !remove && !e.value_null;
    list.AddIgnite(e.cache_id, e.partition, e.counter, remove, e.key_type, e.key, valued ? &e.value_type : nullptr,
                   e.value);
  }
  return wal::Status::Ok();
}

void NodeReplay::ApplyFree(const wal::DataEntry& e) {
  const auto op = static_cast<uint8_t>(e.op);
  if (op == wal::ignite::kOpRead || op == wal::ignite::kOpNoop) return;
  Copy& c = copies_.Get(e.cache_id, e.partition);
  ++out_.entries;
  if (e.counter > c.base_counter) (void)c.counters.Update(e.counter - 1, 1);
  c.highest = std::max(c.highest, e.counter);
  std::string key(1, static_cast<char>(e.key_type));
  key.append(e.key);
  std::string value;
  const bool remove = e.op == wal::EntryOp::kDelete || e.value_null;
  if (!remove) {
    value.push_back(static_cast<char>(e.value_type));
    value.append(e.value);
  }
  Value& v = c.data[key];
  v.bytes = std::move(value);
  v.counter = std::max(v.counter, e.counter);
  v.deleted = remove;
}

// The side of transaction `x` committing at `commit`: placed by its first commit here,
// kept while it has a role open.
cut::Side NodeReplay::SideOf(const wal::TxId& x, const wal::Pointer& commit) {
  Placed* known = placed_.Find(x);
  const cut::Side side = known != nullptr
                             ? known->side
                             : cut::SideOfCommit(
                                   cut::RegionOf(commit, plan_.start, plan_.finish),
                                   [&] { return before_.count(x) != 0; }, [&] { return after_.count(x) != 0; });
  if (order_.IsOpen(x)) {
    if (known == nullptr) placed_.Upsert(x).first->side = side;
  } else if (known != nullptr) {
    placed_.Erase(known);
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
  const bool unprepared_rollback_ok =
      wal::RulesOf(r.format).rollback_without_prepare && t.state == wal::TxState::kRolledBack;
  if (std::string why = order_.OnFinal(x, wal::TxStateName(t.state), unprepared_rollback_ok); !why.empty()) {
    return OutOfOrder(r, why);
  }
  // The transaction's writes: out of the table (their list returns to the pool below).
  uint32_t list = kNoList;
  if (Pending* p = pending_.Find(x); p != nullptr) {
    list = p->list;
    pending_.Erase(p);
    if (last_list_ == list) last_list_ = kNoList;
  }
  if (t.state == wal::TxState::kRolledBack) {
    if (Placed* p = placed_.Find(x); p != nullptr && !order_.IsOpen(x)) placed_.Erase(p);
    if (rules_->commit_placed_at_entries) placer_.Forget(x);
  } else if (SideOf(x, rules_->commit_placed_at_entries ? placer_.Place(x, r.ptr) : r.ptr) == cut::Side::kAfter) {
    ++out_.txs_skipped;
  } else {
    ++out_.txs_applied;
    if (list != kNoList) {
      ApplyAll(lists_[list], copies_, plan_.ignite, &out_);
    }
  }
  if (list != kNoList) {
    lists_[list].clear();
    free_lists_.push_back(list);
  }
  return wal::Status::Ok();
}

NodeResult NodeReplay::Finish() {
  for (Copy* p : copies_.Sorted()) {  // the partition files in (cache, partition) order
    Copy& copy = *p;
    // The restored counter is the highest write applied (or the base's). Rollbacks close
    // ranges below it; above it they are dropped, or copies that logged the rollback
    // before the cut and copies that logged it after would disagree.
    CounterTracker& t = copy.counters;
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
  if (!plan.ignite_store.empty()) return RestoreIgniteIncrement(plan, progress);
  NodeReplay replay(plan, progress);
  WAL_RETURN_IF_ERROR(replay.LoadBase());
  WAL_RETURN_IF_ERROR(replay.Replay());
  return replay.Finish();
}

}  // namespace recovery
