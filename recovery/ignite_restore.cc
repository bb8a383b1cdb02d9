#include "recovery/ignite_restore.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_increment_meta.h"
#include "libwal/ignite_record.h"
#include "libwal/ignite_snapshot.h"
#include "libwal/wal_reader.h"
#include "recovery/counter_tracker.h"
#include "recovery/ignite_copies.h"

namespace recovery {
namespace {

// The partition id Ignite writes for an entry whose partition it did not know.
constexpr uint32_t kUnknownPartition = UINT32_MAX;

struct Row {
  std::string value;
  uint64_t counter = 0;  // of the entry that wrote it; 0 for the full snapshot's
};

// One cache's part of a group partition's copy.
struct CacheCopy {
  uint32_t cache = 0;
  uint32_t partition = 0;
  std::unordered_map<std::string, Row> rows;
};

// A group partition's copy: its counter, and its caches' rows.
struct GroupCopy {
  CounterTracker counters;
  uint64_t highest = 0;
  std::vector<CacheCopy> caches;
};

// A key in two rows of one cache of a full snapshot's partition file: damage, of which a
// restore takes neither row (ReadIgniteCopy's `sorted` would keep one).
wal::Status KeyInTwoRows(const wal::IgniteGroupDir& g, uint32_t cache, const std::string& path) {
  return wal::Status::Corruption(
      fmt::format("the full snapshot is damaged: \"{}\": cache '{}' holds a key in more than one row", path,
                  IgniteCacheName(g, static_cast<int32_t>(cache))));
}

bool AKeyInTwoRows(const std::vector<PartitionEntry>& entries) {
  std::unordered_set<std::string_view> keys;
  keys.reserve(entries.size());
  for (const auto& e : entries) {
    if (!keys.insert(e.key).second) return true;
  }
  return false;
}

class IncrementReplay {
 public:
  IncrementReplay(const NodePlan& plan, const ProgressFn& progress)
      : plan_(plan),
        progress_(progress),
        included_(plan.before.begin(), plan.before.end()),
        excluded_(plan.after.begin(), plan.after.end()) {
    out_.node = plan.node;
  }

  wal::Status LoadBase();
  wal::Status Replay();
  NodeResult Finish();

 private:
  enum class Filter { kAll, kNotExcluded, kIncluded };
  bool Passes(const wal::TxId& xid) const {
    switch (filter_) {
      case Filter::kAll: return true;
      case Filter::kNotExcluded: return xid.IsNull() || excluded_.count(xid) == 0;
      case Filter::kIncluded: return !xid.IsNull() && included_.count(xid) != 0;
    }
    return false;
  }
  wal::Status OnData(const wal::Record& r);
  // One record of the range; *finished at the increment's Finish record.
  // `bytes`: its size, and that of the records before it not handed over.
  wal::Status Step(const wal::Record& r, uint64_t bytes, bool* finished);

  const NodePlan& plan_;
  const ProgressFn& progress_;
  const std::set<wal::TxId> included_, excluded_;
  NodeResult out_;
  std::unordered_map<int32_t, int32_t> group_of_;             // cache id -> group id
  std::map<std::pair<int32_t, uint32_t>, GroupCopy> copies_;  // (group, partition)
  Filter filter_ = Filter::kAll;
  bool started_ = false;
  std::unordered_set<wal::TxId, wal::TxIdHash> applied_, skipped_;
  wal::TxId last_applied_, last_skipped_;       // the last put in each (null: none yet)
  std::string key_;                             // OnData's key, its buffer kept
  std::map<int32_t, uint64_t> unknown_caches_;  // entries of caches the snapshot does not hold
  wal::DataEntry entry_;
  uint64_t since_progress_ = 0;
};

wal::Status IncrementReplay::LoadBase() {
  auto groups = wal::ListIgniteGroups(plan_.ignite_store);
  if (!groups.ok()) return groups.status();
  IgniteCopyOptions how;
  how.hashes = false;  // the rows are all a restore takes of its base
  how.sorted = false;  // they go into a map, which tells a key in two rows
  for (const auto& g : *groups) {
    if (g.metastorage) continue;
    for (const auto& c : g.caches) {
      if (!c.problem.empty()) return wal::Status::Corruption(c.problem);
      group_of_[c.id] = g.id;
    }
    if (!g.shared && g.caches.empty()) group_of_[g.id] = g.id;
    for (const auto& [partition, path] : g.files) {
      if (partition == wal::ignite_page::kIndexPartition) continue;
      IgniteCopy copy;
      WAL_RETURN_IF_ERROR(ReadIgniteCopy(g, partition, path, how, &copy));
      if (!copy.damage.empty()) {
        return wal::Status::Corruption(fmt::format(
            "the full snapshot is damaged: {}{}", copy.damage[0].ToString(path),
            copy.damage.size() > 1 ? fmt::format(" (and {} more)", copy.damage.size() - 1) : std::string()));
      }
      if (!copy.meta_read) {
        return wal::Status::Corruption(fmt::format("\"{}\": its partition meta page cannot be read", path));
      }
      GroupCopy& gc = copies_[{g.id, partition}];
      gc.counters = CounterTracker(copy.meta.update_counter, copy.meta.update_counter);
      gc.highest = copy.meta.update_counter;
      for (auto& f : copy.caches) {
        CacheCopy cc;
        cc.cache = f.cache_id;
        cc.partition = partition;
        if (!plan_.Selected(f.cache_id, partition)) {
          // Not restored, and refused all the same when damaged.
          if (AKeyInTwoRows(f.entries)) return KeyInTwoRows(g, f.cache_id, path);
          gc.caches.push_back(std::move(cc));
          continue;
        }
        cc.rows.reserve(f.entries.size());
        for (auto& e : f.entries) {
          if (!cc.rows.emplace(std::move(e.key), Row{std::move(e.value), 0}).second) {
            return KeyInTwoRows(g, f.cache_id, path);
          }
        }
        gc.caches.push_back(std::move(cc));
      }
    }
  }
  return wal::Status::Ok();
}

wal::Status IncrementReplay::OnData(const wal::Record& r) {
  wal::DataEntryCursor entries(r.data);
  wal::DataEntry& e = entry_;
  while (entries.Next(&e)) {
    if (!started_) continue;
    const auto cache = static_cast<int32_t>(e.cache_id);
    auto g = group_of_.find(cache);
    if (g == group_of_.end()) {  // not a cache of the snapshot: Ignite does not restore it
      ++unknown_caches_[cache];
      continue;
    }
    if (!Passes(e.xid)) {
      if (!e.xid.IsNull() && !(last_skipped_ == e.xid)) {
        skipped_.insert(e.xid);
        last_skipped_ = e.xid;
      }
      continue;
    }
    const auto op = static_cast<uint8_t>(e.op);
    if (op == wal::ignite::kOpRead || op == wal::ignite::kOpNoop) continue;
    if (e.op != wal::EntryOp::kCreate && e.op != wal::EntryOp::kUpdate && e.op != wal::EntryOp::kDelete) {
      return wal::Status::NotSupported(fmt::format("{}: an entry at {} is a {} write, which walcut cannot apply",
                                                   plan_.node, r.ptr.ToString(), wal::EntryOpName(e.op)));
    }
    if (e.partition == kUnknownPartition) {
      return wal::Status::NotSupported(fmt::format(
          "{}: an entry of cache {} at {} has no partition (-1: Ignite did not know it, and its restore asks the "
          "cache's affinity, which walcut cannot)",
          plan_.node, cache, r.ptr.ToString()));
    }
    auto c = copies_.find({g->second, e.partition});
    if (c == copies_.end()) {
      return wal::Status::Corruption(
          fmt::format("{}: an entry of cache {} partition {} at {}, a partition the node's full snapshot does not hold "
                      "(Ignite's restore fails on it too)",
                      plan_.node, cache, e.partition, r.ptr.ToString()));
    }
    if (!e.xid.IsNull() && !(last_applied_ == e.xid)) {  // a transaction's entries come together
      applied_.insert(e.xid);
      last_applied_ = e.xid;
    }
    if (!plan_.Selected(e.cache_id, e.partition)) continue;
    GroupCopy& gc = c->second;
    if (e.counter != 0) {  // a rebalance's entry has none
      wal::Status s = gc.counters.Update(e.counter - 1, 1);
      if (s.code() == wal::StatusCode::kNotSupported) {
        return wal::Status::NotSupported(
            fmt::format("{}: group {} partition {}: {}", plan_.node, g->second, e.partition, s.message()));
      }
      gc.highest = std::max(gc.highest, e.counter);
    }
    auto cc =
        std::find_if(gc.caches.begin(), gc.caches.end(), [&](const CacheCopy& x) { return x.cache == e.cache_id; });
    if (cc == gc.caches.end()) {
      gc.caches.push_back({e.cache_id, e.partition, {}});
      cc = gc.caches.end() - 1;
    }
    ++out_.entries;
    // The key in a buffer kept from entry to entry, and a row already there updated in
    // place: most entries update a key the copy holds, and allocate nothing then.
    std::string& key = key_;
    key.clear();
    key.push_back(static_cast<char>(e.key_type));
    key.append(e.key);
    if (e.op == wal::EntryOp::kDelete) {
      cc->rows.erase(key);
      continue;
    }
    auto row = cc->rows.find(key);
    if (row == cc->rows.end()) row = cc->rows.emplace(key, Row{}).first;
    std::string& value = row->second.value;
    value.clear();
    if (!e.value_null) {
      value.push_back(static_cast<char>(e.value_type));
      value.append(e.value);
    }
    row->second.counter = e.counter;
  }
  return wal::Status::Ok();
}

wal::Status IncrementReplay::Step(const wal::Record& r, uint64_t bytes, bool* finished) {
  out_.read_to = r.ptr;
  out_.wal_bytes += bytes;
  since_progress_ += bytes;
  if (progress_ && since_progress_ > (8u << 20)) {
    progress_(plan_.node, out_.wal_bytes);
    since_progress_ = 0;
  }
  const auto type = static_cast<wal::RecordType>(r.type);
  if (type == wal::RecordType::kData) {
    WAL_RETURN_IF_ERROR(OnData(r));
  } else if (type == wal::RecordType::kClusterSnapshot) {
    started_ |= r.decoded.snapshot.name == plan_.snapshot;
  } else if (type == wal::RecordType::kCutStart) {
    if (started_ && r.decoded.cut_start.cut_id == plan_.cut_id) filter_ = Filter::kIncluded;
  } else if (type == wal::RecordType::kCutFinish) {
    const wal::Uuid& id = r.decoded.cut_finish.cut_id;
    if (started_ && id == plan_.cut_id) {
      *finished = true;
      return wal::Status::Ok();
    }
    if (started_ && id == plan_.previous_cut) filter_ = Filter::kNotExcluded;
  } else if (wal::IsIgniteOtherDataRecord(r.type)) {
    return wal::Status::NotSupported(fmt::format(
        "{}: {} at {} holds writes walcut cannot apply (only DATA_RECORD_V2 is read): the restore would miss them",
        plan_.node, wal::IgniteRecordTypeName(r.type), r.ptr.ToString()));
  }
  return wal::Status::Ok();
}

wal::Status IncrementReplay::Replay() {
  out_.read_from = plan_.from;
  filter_ = plan_.previous_cut.IsNil() ? Filter::kNotExcluded : Filter::kAll;
  bool reached_finish = false;
  const KeptRecords* kept = plan_.kept.get();
  if (kept != nullptr && kept->complete() && kept->from() == plan_.from && kept->cut_id() == plan_.cut_id) {
    // The check read these records from the same files a moment ago.
    WAL_RETURN_IF_ERROR(kept->ForEach(
        [&](const wal::Record& r, uint64_t bytes) { return Step(r, bytes, &reached_finish); }, &reached_finish));
  } else {
    auto files = SegmentsOfRange(plan_.node, plan_.wal, plan_.from, plan_.finish);
    if (!files.ok()) return files.status();
    std::string first_error;
    wal::ReaderOptions ro;
    ro.from = plan_.from;
    ro.from_is_record = true;  // the full snapshot's record: read from there, once it verifies
    ro.light = true;           // DATA records viewed in place
    auto reader = wal::WalReader::OpenFiles(std::move(files).value(), ro, [&](const wal::Issue& i) {
      if (i.IsError() && first_error.empty()) first_error = i.ToString();
    });
    const wal::Record* r = nullptr;
    while (!reached_finish && reader->Next(&r) && first_error.empty()) {
      WAL_RETURN_IF_ERROR(Step(*r, r->size, &reached_finish));
    }
    if (!first_error.empty()) {
      return wal::Status::Corruption(
          fmt::format("{}: the WAL range to replay is damaged: {}", plan_.node, first_error));
    }
  }
  if (!started_) {
    return wal::Status::Corruption(fmt::format("{}: no CLUSTER_SNAPSHOT record of '{}' at {} or after it", plan_.node,
                                               plan_.snapshot, plan_.from.ToString()));
  }
  if (!reached_finish) {
    return wal::Status::Corruption(fmt::format("{}: the WAL ends before the increment's Finish record at {}",
                                               plan_.node, plan_.finish.ToString()));
  }
  return wal::Status::Ok();
}

NodeResult IncrementReplay::Finish() {
  out_.txs_applied = applied_.size();
  out_.txs_skipped = skipped_.size();
  for (const auto& [cache, n] : unknown_caches_) {
    out_.warnings.push_back(
        fmt::format("{}: {} entries of cache {}, which the full snapshot does not hold, not "
                    "applied (as Ignite's restore does not)",
                    plan_.node, n, cache));
  }
  std::vector<PartitionFile> files;
  for (auto& [key, gc] : copies_) {
    gc.counters.RaiseHwm(gc.highest);
    out_.gaps_closed += gc.counters.Finalize().size();
    for (auto& cc : gc.caches) {
      if (!plan_.Selected(cc.cache, cc.partition)) continue;
      PartitionFile pf;
      pf.cache_id = cc.cache;
      pf.partition = cc.partition;
      pf.lwm = pf.hwm = gc.counters.lwm();
      pf.entries.reserve(cc.rows.size());
      for (auto& [k, row] : cc.rows) pf.entries.push_back({k, std::move(row.value), row.counter});
      std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
      files.push_back(std::move(pf));
    }
  }
  std::sort(files.begin(), files.end(), [](const PartitionFile& x, const PartitionFile& y) {
    return PackedCopyKey(x.cache_id, x.partition) < PackedCopyKey(y.cache_id, y.partition);
  });
  out_.partitions = std::move(files);
  copies_.clear();
  if (progress_) progress_(plan_.node, out_.wal_bytes);
  return std::move(out_);
}

}  // namespace

std::shared_ptr<std::atomic<int64_t>> KeptRecords::Budget(int64_t bytes) {
  if (bytes <= 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const int64_t memory = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : (int64_t{1} << 32);
    bytes = std::min<int64_t>(memory / 4, int64_t{2} << 30);
  }
  return std::make_shared<std::atomic<int64_t>>(bytes);
}

KeptRecords::KeptRecords(wal::Pointer from, wal::Uuid cut_id, std::shared_ptr<std::atomic<int64_t>> budget)
    : from_(from), cut_id_(cut_id), budget_(std::move(budget)) {}

KeptRecords::~KeptRecords() { Drop(); }

void KeptRecords::Drop() {
  if (budget_ && taken_ != 0) budget_->fetch_add(taken_);
  taken_ = 0;
  std::vector<Item>().swap(items_);
  std::vector<std::unique_ptr<char[]>>().swap(chunks_);
  chunk_used_ = chunk_size_ = 0;
}

char* KeptRecords::Room(size_t n) {
  if (!chunks_.empty() && chunk_size_ - chunk_used_ >= n) {
    char* at = chunks_.back().get() + chunk_used_;
    chunk_used_ += n;
    return at;
  }
  constexpr size_t kChunk = 1 << 20;
  const size_t size = std::max(kChunk, n);
  const auto cost = static_cast<int64_t>(size);
  if (budget_ && budget_->fetch_sub(cost) < cost) {
    budget_->fetch_add(cost);
    return nullptr;
  }
  taken_ += cost;
  chunks_.push_back(std::make_unique_for_overwrite<char[]>(size));
  chunk_size_ = size;
  chunk_used_ = n;
  return chunks_.back().get();
}

void KeptRecords::Add(const wal::Record& r) {
  if (finished_ || dropped_ || r.ptr < from_) return;
  Item it;
  it.ptr = r.ptr;
  it.size = r.size;
  it.type = r.type;
  it.format = r.format;
  std::string_view keep;
  switch (static_cast<wal::RecordType>(r.type)) {
    case wal::RecordType::kData:
      it.count = r.data.count;
      it.timestamp = r.data.timestamp;
      it.format = r.data.format;
      keep = r.data.entries;
      break;
    case wal::RecordType::kClusterSnapshot: keep = r.decoded.snapshot.name; break;
    case wal::RecordType::kCutStart: it.id = r.decoded.cut_start.cut_id; break;
    case wal::RecordType::kCutFinish:
      it.id = r.decoded.cut_finish.cut_id;
      finished_ = it.id == cut_id_;
      break;
    default:
      if (!wal::IsIgniteOtherDataRecord(r.type)) {  // not looked at: only its size counts
        skipped_bytes_ += r.size;
        return;
      }
      break;
  }
  it.size += skipped_bytes_;  // the records between count as read with this one
  skipped_bytes_ = 0;
  char* at = Room(keep.size());
  if (at != nullptr && items_.size() == items_.capacity()) {  // the items' vector grows: its share is taken too
    const size_t more = std::max<size_t>(items_.capacity(), 1024);
    const auto cost = static_cast<int64_t>(more * sizeof(Item));
    if (budget_ && budget_->fetch_sub(cost) < cost) {
      budget_->fetch_add(cost);
      at = nullptr;
    } else {
      taken_ += cost;
      items_.reserve(items_.capacity() + more);
    }
  }
  if (at == nullptr) {
    dropped_ = true;
    Drop();
    return;
  }
  if (!keep.empty()) std::memcpy(at, keep.data(), keep.size());
  it.bytes = at;
  it.length = keep.size();
  items_.push_back(it);
}

wal::Status KeptRecords::ForEach(const std::function<wal::Status(const wal::Record&, uint64_t)>& fn,
                                 const bool* stop) const {
  wal::Record r;
  for (const Item& it : items_) {
    if (stop != nullptr && *stop) break;
    r.ptr = it.ptr;
    r.size = static_cast<uint32_t>(std::min<uint64_t>(it.size, UINT32_MAX));
    r.type = it.type;
    r.format = it.format;
    const std::string_view bytes(it.bytes, it.length);
    switch (static_cast<wal::RecordType>(it.type)) {
      case wal::RecordType::kData: r.data = wal::DataView{it.timestamp, it.count, bytes, it.format}; break;
      case wal::RecordType::kClusterSnapshot: r.decoded.snapshot.name = bytes; break;
      case wal::RecordType::kCutStart: r.decoded.cut_start.cut_id = it.id; break;
      case wal::RecordType::kCutFinish: r.decoded.cut_finish.cut_id = it.id; break;
      default: break;
    }
    WAL_RETURN_IF_ERROR(fn(r, it.size));
  }
  return wal::Status::Ok();
}

wal::Result<NodeResult> RestoreIgniteIncrement(const NodePlan& plan, const ProgressFn& progress) {
  IncrementReplay replay(plan, progress);
  WAL_RETURN_IF_ERROR(replay.LoadBase());
  WAL_RETURN_IF_ERROR(replay.Replay());
  return replay.Finish();
}

namespace {
namespace fs = std::filesystem;

constexpr uint64_t kMaxSmfBytes = 1 << 20;

std::string IncrementDir(const std::string& snapshot_dir, uint32_t i) {
  return fmt::format("{}/increments/{:016d}", snapshot_dir, i);
}

}  // namespace

wal::Status PlaceIgniteSnapshotNode(const std::string& snapshot_dir, const std::string& snapshot, uint32_t increment,
                                    const wal::WalLocation& live, NodePlan* np) {
  const std::string& folder = np->node;
  const std::string store = snapshot_dir + "/db/" + folder;
  std::error_code ec;
  if (!fs::is_directory(store, ec)) {
    return wal::Status::NotFound(
        fmt::format("{}: the full snapshot '{}' holds no page files of it (\"{}\")", folder, snapshot, store));
  }
  const std::string smf = fmt::format("{}/{}.smf", snapshot_dir, folder);
  auto bytes = wal::ReadFileToString(smf, kMaxSmfBytes);
  if (!bytes.ok()) return wal::Status::Corruption(fmt::format("{}: {}", folder, bytes.status().message()));
  auto meta = wal::ParseIgniteSnapshotMeta(*bytes);
  if (!meta.ok()) return wal::Status::Corruption(fmt::format("\"{}\": {}", smf, meta.status().message()));
  if (meta->snapshot != snapshot || meta->folder != folder) {
    return wal::Status::Corruption(fmt::format("\"{}\": the metadata of snapshot '{}' of {}, not '{}' of {}", smf,
                                               meta->snapshot, meta->folder, snapshot, folder));
  }
  if (!meta->record) {
    return wal::Status::Corruption(fmt::format("\"{}\": no pointer to the snapshot's CLUSTER_SNAPSHOT record", smf));
  }
  np->ignite = true;
  np->ignite_store = store;
  np->snapshot = snapshot;
  np->from = *meta->record;
  np->base_dir = store;
  std::vector<std::string> dirs;
  for (uint32_t i = 1; i <= increment; ++i) {
    const std::string d = IncrementDir(snapshot_dir, i) + "/db/wal/" + folder;
    if (!fs::is_directory(d, ec)) break;
    dirs.push_back(d);
  }
  // The segments the check read (the node's archive, where it still holds them, then the
  // increments' copies): the replay applies what was checked, and reads a raw segment
  // rather than inflate its .wal.zip copy.
  np->wal = !live.empty() ? live : wal::WalLocation(std::move(dirs));
  if (increment > 1) {
    const std::string prev = fmt::format("{}/{}.smf", IncrementDir(snapshot_dir, increment - 1), folder);
    auto prev_bytes = wal::ReadFileToString(prev, kMaxSmfBytes);
    if (!prev_bytes.ok()) return wal::Status::Corruption(fmt::format("{}: {}", folder, prev_bytes.status().message()));
    auto prev_meta = wal::ParseIgniteIncrementMeta(*prev_bytes);
    if (!prev_meta.ok()) return wal::Status::Corruption(fmt::format("\"{}\": {}", prev, prev_meta.status().message()));
    np->previous_cut = prev_meta->request_id;
  }
  return wal::Status::Ok();
}

wal::Status CheckIgniteBase(const NodePlan& plan) {
  auto groups = wal::ListIgniteGroups(plan.ignite_store);
  if (!groups.ok()) return groups.status();
  IgniteCopyOptions how;
  how.hashes = false;
  how.sorted = false;  // a key in two rows is told as the restore tells it
  for (const auto& g : *groups) {
    for (const auto& [partition, path] : g.files) {
      IgniteCopy copy;
      WAL_RETURN_IF_ERROR(ReadIgniteCopy(g, partition, path, how, &copy));
      if (!copy.damage.empty()) {
        return wal::Status::Corruption(fmt::format("the full snapshot is damaged: {}", copy.damage[0].ToString(path)));
      }
      for (const auto& f : copy.caches) {
        if (AKeyInTwoRows(f.entries)) return KeyInTwoRows(g, f.cache_id, path);
      }
    }
  }
  return wal::Status::Ok();
}

}  // namespace recovery
