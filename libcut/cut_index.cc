#include "libcut/cut_index.h"

#include "libcut/tx_order.h"
#include "libcut/tx_table.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <xxhash.h>

namespace cut {
namespace {

// A key is known by its partition and the XXH3 of its bytes: the per-key check needs
// identity, not the bytes, and a window holds many writes.
struct Write {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t key_hash = 0;
  uint64_t counter = 0;
};

struct Commit {
  wal::TxId xid;
  wal::Pointer ptr;
  // The participants' node orders: bits of a mask when all are below 64, or else an
  // index into the builder's table of participant sets.
  uint64_t participant_mask = 0;
  uint32_t participant_set = UINT32_MAX;
  uint32_t writes_count = 0;
  uint64_t writes_begin = 0;  // its writes: arena positions [begin, begin + count)
  uint64_t hash = 0;          // HashTxId(xid)
};

// A queue over one vector: pushed at the back, popped at the front, indexed from it.
template <typename T>
class Fifo {
 public:
  bool empty() const { return head_ == v_.size(); }
  size_t size() const { return v_.size() - head_; }
  T& operator[](size_t i) { return v_[head_ + i]; }
  const T& operator[](size_t i) const { return v_[head_ + i]; }
  const T& front() const { return v_[head_]; }
  void push_back(const T& x) { v_.push_back(x); }
  template <typename It>
  void append(It b, It e) { v_.insert(v_.end(), b, e); }
  void pop_front(size_t n = 1) {
    head_ += n;
    if (head_ >= 4096 && head_ * 2 >= v_.size()) {
      v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<T> v_;
  size_t head_ = 0;
};

struct CutState {
  CutOnNode cut;
  bool finalized = false;
  bool has_next_start = false;
  wal::Pointer next_start;
  wal::Pointer window_begin;  // the previous cut's Start, or the beginning
};

struct OrdersHash {
  size_t operator()(const std::vector<uint16_t>& v) const {
    return static_cast<size_t>(XXH3_64bits(v.data(), v.size() * sizeof(uint16_t)));
  }
};

class IndexBuilder {
 public:
  // Cuts whose window is complete go to `ready`, in WAL order.
  IndexBuilder(NodeIndex* index, std::deque<CutOnNode>* ready) : index_(index), ready_(ready) {}
  uint64_t last_start_ts() const { return last_start_ts_; }
  // The reader the records come from (for the file of an out-of-order record).
  void set_reader(const wal::WalReader* reader) { reader_ = reader; }

  void OnRecord(const wal::Record& r) {
    if (index_->records++ == 0) index_->begin = r.ptr;
    // Segments missing between two read (reported before reading began): a gap, as below.
    if (r.ptr.segment > last_segment_ + 1 && index_->records > 1) order_ = TxOrder();
    last_segment_ = r.ptr.segment;
    const auto& a = r.decoded;
    switch (static_cast<wal::RecordType>(r.type)) {
      case wal::RecordType::kHeader:
        index_->node_id = a.header.node_id;
        index_->order = a.header.node_order;
        break;
      case wal::RecordType::kClusterSnapshot:
        index_->snapshots.push_back({std::string(a.snapshot.name), r.ptr, a.snapshot.timestamp});
        Stamp(a.snapshot.timestamp);
        order_.Start();
        break;
      case wal::RecordType::kData: {
        Stamp(r.data.timestamp);
        wal::DataEntryCursor entries(r.data);
        wal::DataEntry e;
        while (entries.Next(&e)) {
          if (std::string why = order_.OnWrite(e.xid); !why.empty()) OutOfOrder(r, why);
          if (e.xid.IsNull()) continue;  // an initial load, not a transaction
          // A transaction's writes usually come just before its commit: they gather in one
          // reused slot, and only interleaved transactions go to the map.
          if (!last_writes_.empty() && last_xid_ != e.xid) {
            auto& p = pending_[last_xid_];
            p.insert(p.end(), last_writes_.begin(), last_writes_.end());
            last_writes_.clear();
          }
          last_xid_ = e.xid;
          last_writes_.push_back({e.cache_id, e.partition, XXH3_64bits(e.key.data(), e.key.size()), e.counter});
        }
        break;
      }
      case wal::RecordType::kTx: {
        const wal::TxView& t = r.tx;
        Stamp(t.timestamp);
        std::string why = t.state == wal::TxState::kPrepared ? order_.OnPrepared(t.xid)
                                                             : order_.OnFinal(t.xid, wal::TxStateName(t.state));
        if (!why.empty()) OutOfOrder(r, why);
        if (t.state == wal::TxState::kCommitted || t.state == wal::TxState::kUnknown) {
          Commit c;
          c.xid = t.xid;
          c.hash = HashTxId(t.xid);
          c.ptr = r.ptr;
          bool narrow = true;
          t.ForEachParticipantNode([&](uint16_t order) {
            if (order < 64) {
              c.participant_mask |= uint64_t{1} << order;
            } else {
              narrow = false;
            }
          });
          if (!narrow) {
            scratch_.clear();
            t.ForEachParticipantNode([&](uint16_t order) { scratch_.push_back(order); });
            std::sort(scratch_.begin(), scratch_.end());
            scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
            c.participant_set = Intern(scratch_);
          }
          c.writes_begin = arena_base_ + arena_.size();
          if (!pending_.empty()) {
            auto it = pending_.find(t.xid);
            if (it != pending_.end()) {
              arena_.append(it->second.begin(), it->second.end());
              pending_.erase(it);
            }
          }
          if (!last_writes_.empty() && last_xid_ == t.xid) {
            arena_.append(last_writes_.begin(), last_writes_.end());
            last_writes_.clear();
          }
          c.writes_count = static_cast<uint32_t>(arena_base_ + arena_.size() - c.writes_begin);
          buffer_.push_back(c);
        } else if (t.state == wal::TxState::kRolledBack) {
          if (!pending_.empty()) pending_.erase(t.xid);
          if (last_xid_ == t.xid) last_writes_.clear();
        }
        break;
      }
      case wal::RecordType::kCutStart:
        Stamp(a.cut_start.timestamp);
        OnStart(r);
        break;
      case wal::RecordType::kCutFinish:
        Stamp(a.cut_finish.timestamp);
        OnFinish(r);
        break;
      default:
        break;
    }
  }

  void OnIssue(const wal::Issue& issue) {
    if (issue.kind == wal::IssueKind::kTornTail) index_->torn_tail = issue.ToString();
    if (!issue.IsError()) return;
    AddError(wal::Pointer{issue.segment, static_cast<uint32_t>(issue.offset)}, issue.ToString());
    // Past a gap in what was read, transactions are no longer seen whole: their order
    // is checked again from the next full snapshot.
    order_ = TxOrder();
  }

  void Finish(wal::Pointer end) {
    index_->end = end;
    for (auto& s : states_) {
      if (!s.finalized) Finalize(s);
    }
    for (auto& s : states_) ready_->push_back(std::move(s.cut));
    states_.clear();
  }

 private:
  void Stamp(uint64_t ts) { index_->last_ts = std::max(index_->last_ts, ts); }

  void AddError(wal::Pointer at, std::string text) {
    index_->read_errors.push_back(text);
    index_->read_error_at.push_back(at);
    errors_.push_back({at, std::move(text)});
  }

  // A record out of the order of tx_order.h: an error of the WAL, as damage is.
  void OutOfOrder(const wal::Record& r, const std::string& why) {
    AddError(r.ptr, fmt::format("\"{}\": records out of order at offset {} (record {}): {}",
                                reader_ != nullptr ? reader_->current_file() : std::string("-"), r.ptr.offset,
                                r.record_index, why));
  }

  uint32_t Intern(const std::vector<uint16_t>& set) {
    auto it = participant_ids_.find(set);
    if (it != participant_ids_.end()) return it->second;
    const auto id = static_cast<uint32_t>(participant_sets_.size());
    participant_ids_.emplace(set, id);
    participant_sets_.push_back(set);
    return id;
  }

  // The first commit of buffer_ at index `from` or later whose pointer is not below `p`.
  size_t LowerBound(size_t from, const wal::Pointer& p) const {
    size_t lo = from, hi = buffer_.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (buffer_[mid].ptr < p) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  CutState* Find(const wal::Uuid& id) {
    for (auto& s : states_) {
      if (s.cut.id == id) return &s;
    }
    return nullptr;
  }

  // A record of a cut already handed over (a WAL written by a broken algorithm, or
  // damaged): reported on the cut now open, naming the old one; it opens nothing.
  bool Stray(const wal::Record& r, const wal::Uuid& id, const char* what) {
    if (emitted_.count(id) == 0 || states_.empty()) return false;
    states_.back().cut.problems.push_back(
        {std::string(what) == "Start" ? "duplicate-record" : "finish-after-next-start", {}, r.ptr,
         fmt::format("a {} record of cut {}, written after later cuts' Start records", what, id.ToString())});
    return true;
  }

  void OnStart(const wal::Record& r) {
    const auto& st = r.decoded.cut_start;
    CutState* s = Find(st.cut_id);
    if (s == nullptr && Stray(r, st.cut_id, "Start")) return;
    if (s != nullptr && s->cut.has_start) {
      s->cut.problems.push_back({"duplicate-record", {}, r.ptr, "a second Start record of this cut"});
      return;
    }
    // The previous cut's window ends here.
    if (!states_.empty() && s == nullptr) {
      CutState& prev = states_.back();
      prev.has_next_start = true;
      prev.next_start = r.ptr;
      if (!prev.finalized) Finalize(prev);
    }
    if (s == nullptr) {
      states_.emplace_back();
      s = &states_.back();
      s->cut.id = st.cut_id;
      s->window_begin = last_start_;
    }
    s->cut.has_start = true;
    s->cut.start = r.ptr;
    s->cut.topology_version = st.topology_version;
    s->cut.start_ts = st.timestamp;
    for (auto it = index_->snapshots.rbegin(); it != index_->snapshots.rend(); ++it) {
      if (it->at < r.ptr) {
        s->cut.base = it->name;
        break;
      }
    }
    last_start_ = r.ptr;
    last_start_ts_ = std::max(last_start_ts_, st.timestamp);
    Trim();
    Emit();
  }

  void OnFinish(const wal::Record& r) {
    const auto& f = r.decoded.cut_finish;
    CutState* s = Find(f.cut_id);
    if (s == nullptr && Stray(r, f.cut_id, "Finish")) return;
    if (s == nullptr) {
      states_.emplace_back();
      s = &states_.back();
      s->cut.id = f.cut_id;
      s->window_begin = last_start_;
      s->cut.problems.push_back({"finish-without-start", {}, r.ptr, "Finish record with no Start record before it"});
    }
    if (s->cut.has_finish) {
      s->cut.problems.push_back({"duplicate-record", {}, r.ptr, "a second Finish record of this cut"});
      return;
    }
    s->cut.has_finish = true;
    s->cut.finish = r.ptr;
    s->cut.finish_ts = f.timestamp;
    s->cut.before = f.before;
    s->cut.after = f.after;
    if (s->finalized) {
      s->cut.problems.push_back({"finish-after-next-start", {}, r.ptr,
                                 "Finish record written after the next cut's Start record"});
    }
    Emit();
  }

  // A finalized cut is handed over once nothing more can change it: it has its Finish
  // record, or the cut after it is finalized too (a Finish written later still is
  // reported on a cut of its own).
  void Emit() {
    while (!states_.empty() && states_.front().finalized &&
           (states_.front().cut.has_finish || (states_.size() > 1 && states_[1].finalized))) {
      emitted_.insert(states_.front().cut.id);
      ready_->push_back(std::move(states_.front().cut));
      states_.erase(states_.begin());
    }
  }

  // Commits before the last cut's window are no longer needed by any cut.
  void Trim() {
    wal::Pointer keep = last_start_;
    for (const auto& s : states_) {
      if (!s.finalized) {
        keep = s.window_begin;
        break;
      }
    }
    size_t drop = 0;
    while (drop < buffer_.size() && buffer_[drop].ptr < keep) ++drop;
    buffer_.pop_front(drop);
    const uint64_t arena_keep = buffer_.empty() ? arena_base_ + arena_.size() : buffer_.front().writes_begin;
    arena_.pop_front(static_cast<size_t>(arena_keep - arena_base_));
    arena_base_ = arena_keep;
  }

  void Finalize(CutState& s) {
    s.finalized = true;
    CutOnNode& c = s.cut;
    const wal::Pointer lo = s.window_begin;
    const wal::Pointer hi = s.has_next_start ? s.next_start : wal::Pointer{UINT64_MAX, UINT32_MAX};
    for (const auto& [at, text] : errors_) {
      if (!(at < lo) && at < hi) {
        c.unverifiable = text;
        break;
      }
    }
    if (!c.has_start || !c.has_finish) return;
    if (c.finish < c.start) {
      c.problems.push_back({"finish-before-start", {}, c.finish, "Finish record precedes the Start record"});
    }
    auto dupes = [&](const std::vector<wal::TxId>& v, const char* set) {
      std::vector<wal::TxId> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 1; i < sorted.size(); ++i) {
        if (sorted[i] == sorted[i - 1]) {
          c.problems.push_back({"duplicate-entry", sorted[i], c.finish,
                                fmt::format("listed twice in the {} set", set)});
        }
      }
    };
    dupes(c.before, "before");
    dupes(c.after, "after");
    // The sets as written, sorted and unique, for lookups.
    IdSet& before = before_set_;
    IdSet& after = after_set_;
    before.Assign(c.before);
    after.Assign(c.after);
    for (const auto& x : before.ids()) {
      if (after.Contains(x)) {
        c.problems.push_back({"both-sets", x, c.finish, "listed in both the before and the after set"});
      }
    }
    // Classify every commit of the window by the seed rules. The window's commits are
    // buffer_[wfirst, wend), in WAL order; the Start and Finish records split them into
    // those before Start, those between Start and Finish, and those after Finish.
    const size_t wfirst = LowerBound(0, lo);
    const size_t wend = LowerBound(wfirst, hi);
    const size_t wstart = LowerBound(wfirst, c.start);
    const size_t wfinish = std::max(wstart, LowerBound(wstart, c.finish));
    auto side_of = [&](size_t bi) {
      const wal::TxId& x = buffer_[bi].xid;
      const Region where = bi < wstart ? Region::kBeforeStart : bi < wfinish ? Region::kBetween : Region::kAfterFinish;
      return SideOfCommit(where, [&] { return before.Contains(x); }, [&] { return after.Contains(x); });
    };
    IdIndex& seen = seen_;      // xid -> index in c.txs
    auto id_at = [&](uint32_t i) -> const wal::TxId& { return c.txs[i].xid; };
    TxTable& ranged = ranged_;  // listed before and committed between Start and Finish
    // Per key, the highest Before counter must stay below the lowest After counter. The
    // partitions are checked first; only the keys of a partition that fails that go to
    // a table (in a correct cut, those of the few transactions in flight at Start).
    PartitionTable& partitions = partitions_;
    seen.Reset(wend - wfirst);
    ranged.Reset(before.ids().size());
    partitions.Reset();
    c.txs.reserve(wend - wfirst);
    constexpr size_t kAhead = 8;  // prefetch distance
    for (size_t bi = wfirst; bi < wend; ++bi) {
      if (bi + kAhead < wend) seen.Prefetch(buffer_[bi + kAhead].hash);
      const Commit& k = buffer_[bi];
      const Side side = side_of(bi);
      if (bi >= wfinish) {
        if (before.Contains(k.xid) || after.Contains(k.xid)) {
          c.problems.push_back({"listed-after-finish", k.xid, k.ptr,
                                fmt::format("listed in the Finish record at {} but committed after it",
                                            c.finish.ToString())});
        }
      } else if (bi >= wstart && side == Side::kBefore) {
        ranged.Insert(k.xid, 0);  // listed before, committed between Start and Finish
      }
      const auto [first, fresh] = seen.Insert(k.xid, k.hash, static_cast<uint32_t>(c.txs.size()), id_at);
      if (fresh) {
        // Participants matter only for Before transactions committed after Start (the
        // participant rule of the cluster check); the rest carry none.
        if (side == Side::kBefore && bi >= wstart) {
          TxParticipants tp{static_cast<uint32_t>(c.txs.size()), {}};
          if (k.participant_set != UINT32_MAX) {
            tp.nodes = participant_sets_[k.participant_set];
          } else {
            for (uint64_t m = k.participant_mask; m != 0; m &= m - 1) {
              tp.nodes.push_back(static_cast<uint16_t>(__builtin_ctzll(m)));
            }
          }
          c.participants.push_back(std::move(tp));
        }
        c.txs.push_back(TxSide{k.xid, k.ptr, side, k.hash});
      } else if (c.txs[first].side != side) {
        c.problems.push_back({"side-split", k.xid, k.ptr,
                              fmt::format("committed on both sides of the cut on this node (at {} and {})",
                                          c.txs[first].commit.ToString(), k.ptr.ToString())});
      }
      for (uint64_t wi = k.writes_begin; wi < k.writes_begin + k.writes_count; ++wi) {
        const Write& w = arena_[wi - arena_base_];
        partitions.Add(w.cache, w.partition, w.counter, side == Side::kBefore);
      }
    }
    KeyTable& keys = keys_;
    if (partitions.AnyConflict()) {
      keys.Reset(64);
      for (size_t bi = wfirst; bi < wend; ++bi) {
        const Commit& k = buffer_[bi];
        for (uint64_t wi = k.writes_begin; wi < k.writes_begin + k.writes_count; ++wi) {
          const Write& w = arena_[wi - arena_base_];
          if (!partitions.MayConflict(w.cache, w.partition)) continue;
          keys.Add(w.key_hash, w.partition, w.cache, w.counter, side_of(bi) == Side::kBefore,
                   static_cast<uint32_t>(bi - wfirst));
        }
      }
    } else {
      keys.Reset(0);
    }
    for (const auto& x : before.ids()) {
      const uint32_t at_index = seen.Find(x, id_at);
      if (at_index == UINT32_MAX) {
        c.problems.push_back({"listed-not-committed", x, c.finish, "in the before set but not committed on this node"});
      } else if (ranged.Find(x) == nullptr) {
        // (A transaction with two roles here may commit one of them before Start.)
        const wal::Pointer at = c.txs[at_index].commit;
        c.problems.push_back({"before-outside-range", x, at,
                              fmt::format("in the before set but committed at {}, not between Start {} and Finish {}",
                                          at.ToString(), c.start.ToString(), c.finish.ToString())});
      }
    }
    for (const auto& x : after.ids()) {
      if (seen.Find(x, id_at) == UINT32_MAX) {
        c.problems.push_back({"listed-not-committed", x, c.finish, "in the after set but not committed on this node"});
      }
    }
    // Slot order is not an order users can rely on: by the place of the Before commit,
    // then by key (cache, partition, hash), so the report is the same however the
    // table was sized.
    std::vector<const KeyTable::Entry*> broken;
    for (const auto& e : keys.slots()) {
      if (!keys.used(e) || e.before_commit == UINT32_MAX || e.min_after == UINT64_MAX || e.max_before < e.min_after) continue;
      broken.push_back(&e);
    }
    std::sort(broken.begin(), broken.end(), [](const KeyTable::Entry* a, const KeyTable::Entry* b) {
      return std::tie(a->before_commit, a->cache, a->partition, a->hash) <
             std::tie(b->before_commit, b->cache, b->partition, b->hash);
    });
    std::vector<LocalProblem> key_problems;
    for (const KeyTable::Entry* e : broken) {
      const Commit& k = buffer_[wfirst + e->before_commit];
      key_problems.push_back({"key-order", k.xid, k.ptr,
                              fmt::format("cache {} partition {} key xxh3:{:016x}: a Before write has counter "
                                          "{}, an After write counter {}",
                                          e->cache, e->partition, e->hash, e->max_before, e->min_after)});
    }
    c.problems.insert(c.problems.end(), key_problems.begin(), key_problems.end());
  }

  NodeIndex* index_;
  std::deque<CutOnNode>* ready_;
  const wal::WalReader* reader_ = nullptr;
  TxOrder order_;
  uint64_t last_segment_ = 0;
  std::unordered_set<wal::Uuid, wal::UuidHash> emitted_;  // ids of the cuts handed over
  IdIndex seen_;
  KeyTable keys_;
  PartitionTable partitions_;
  IdSet before_set_, after_set_;
  TxTable ranged_;
  uint64_t last_start_ts_ = 0;
  std::unordered_map<wal::TxId, std::vector<Write>, wal::TxIdHash> pending_;
  wal::TxId last_xid_;
  std::vector<Write> last_writes_;
  Fifo<Write> arena_;       // the writes of the commits in buffer_, in order
  uint64_t arena_base_ = 0;  // the position of arena_.front()
  Fifo<Commit> buffer_;
  std::vector<CutState> states_;
  wal::Pointer last_start_{};
  std::vector<std::pair<wal::Pointer, std::string>> errors_;
  std::unordered_map<std::vector<uint16_t>, uint32_t, OrdersHash> participant_ids_;
  std::vector<uint16_t> scratch_;
  std::vector<std::vector<uint16_t>> participant_sets_;
};

}  // namespace

Side SideOf(const CutOnNode& c, const wal::TxId& xid, const wal::Pointer& commit) {
  auto listed = [&](const std::vector<wal::TxId>& v) { return std::find(v.begin(), v.end(), xid) != v.end(); };
  return SideOfCommit(RegionOf(commit, c.start, c.finish), [&] { return listed(c.before); },
                      [&] { return listed(c.after); });
}

struct NodeIndexStream::Impl {
  NodeIndex progress;
  std::deque<CutOnNode> ready;
  IndexBuilder builder{&progress, &ready};
  std::unique_ptr<wal::WalReader> reader;
  bool done = false;
};

NodeIndexStream::NodeIndexStream() : impl_(std::make_unique<Impl>()) {}
NodeIndexStream::~NodeIndexStream() = default;

wal::Result<std::unique_ptr<NodeIndexStream>> NodeIndexStream::Open(const std::string& node,
                                                                    const std::string& wal_dir) {
  std::unique_ptr<NodeIndexStream> s(new NodeIndexStream());
  Impl* impl = s->impl_.get();
  impl->progress.node = node;
  // Many nodes are read at once: the pages of each segment go back as they are read.
  wal::ReaderOptions options;
  options.release_consumed = true;
  options.light = true;
  auto files = wal::ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  if (files->empty()) return wal::Status::NotFound(fmt::format("\"{}\" holds no WAL segment", wal_dir));
  impl->reader = wal::WalReader::OpenFiles(std::move(files).value(), options,
                                           [impl](const wal::Issue& i) { impl->builder.OnIssue(i); });
  impl->builder.set_reader(impl->reader.get());
  return s;
}

bool NodeIndexStream::Next(CutOnNode* out) {
  Impl& m = *impl_;
  const wal::Record* r = nullptr;
  while (m.ready.empty() && !m.done) {
    if (m.reader->Next(&r)) {
      m.builder.OnRecord(*r);
    } else {
      m.builder.Finish(m.reader->end());
      m.done = true;
    }
  }
  if (m.ready.empty()) return false;
  *out = std::move(m.ready.front());
  m.ready.pop_front();
  return true;
}

const NodeIndex& NodeIndexStream::progress() const { return impl_->progress; }
uint64_t NodeIndexStream::last_start_ts() const { return impl_->builder.last_start_ts(); }

wal::Result<NodeIndex> BuildNodeIndex(const std::string& node, const std::string& wal_dir) {
  auto stream = NodeIndexStream::Open(node, wal_dir);
  if (!stream.ok()) return stream.status();
  std::vector<CutOnNode> cuts;
  CutOnNode c;
  while ((*stream)->Next(&c)) cuts.push_back(std::move(c));
  NodeIndex index = (*stream)->progress();
  index.cuts = std::move(cuts);
  return index;
}

namespace {

// An index's reading so far without its cuts (and, unless asked, its read errors).
NodeIndex WithoutCuts(const NodeIndex& index, bool errors) {
  NodeIndex p;
  p.node = index.node;
  p.node_id = index.node_id;
  p.order = index.order;
  p.snapshots = index.snapshots;
  if (errors) {
    p.read_errors = index.read_errors;
    p.read_error_at = index.read_error_at;
    p.torn_tail = index.torn_tail;
  }
  p.open_error = index.open_error;
  p.begin = index.begin;
  p.end = index.end;
  p.last_ts = index.last_ts;
  p.records = index.records;
  return p;
}

class IndexFeedImpl : public CutFeed {
 public:
  explicit IndexFeedImpl(const NodeIndex& index) : index_(index) {
    for (const auto& c : index.cuts) {
      if (c.has_start) last_start_ = std::max(last_start_, c.start_ts);
    }
  }
  bool Next(CutOnNode* out) override {
    if (next_ == index_.cuts.size()) return false;
    *out = index_.cuts[next_++];
    return true;
  }
  NodeIndex Progress() override { return WithoutCuts(index_, true); }
  std::vector<BaseSnapshot> Snapshots() override { return index_.snapshots; }
  uint64_t LastStartTs() override { return last_start_; }

 private:
  const NodeIndex& index_;
  size_t next_ = 0;
  uint64_t last_start_ = 0;
};

// The reading runs ahead on its own thread, at most kAhead cuts in front of the consumer.
class WalFeedImpl : public CutFeed {
 public:
  explicit WalFeedImpl(std::unique_ptr<NodeIndexStream> stream) : stream_(std::move(stream)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~WalFeedImpl() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool Next(CutOnNode* out) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) return false;
    *out = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return true;
  }
  NodeIndex Progress() override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_;
  }
  std::vector<BaseSnapshot> Snapshots() override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_.snapshots;
  }
  uint64_t LastStartTs() override {
    std::lock_guard<std::mutex> lock(mu_);
    return last_start_;
  }

 private:
  static constexpr size_t kAhead = 2;

  void Run() {
    CutOnNode c;
    for (;;) {
      const bool more = stream_->Next(&c);
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return queue_.size() < kAhead || stop_; });
      if (stop_) return;
      if (more) queue_.push_back(std::move(c));
      // The consumer sees what has been read so far; read errors only at the end.
      const NodeIndex& p = stream_->progress();
      progress_ = WithoutCuts(p, !more);
      last_start_ = stream_->last_start_ts();
      done_ = !more;
      cv_.notify_all();
      if (!more) return;
    }
  }

  std::unique_ptr<NodeIndexStream> stream_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CutOnNode> queue_;
  NodeIndex progress_;
  uint64_t last_start_ = 0;
  bool done_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace

std::unique_ptr<CutFeed> IndexFeed(const NodeIndex& index) { return std::make_unique<IndexFeedImpl>(index); }

namespace {

class UnreadableFeedImpl : public CutFeed {
 public:
  UnreadableFeedImpl(const std::string& node, const std::string& why) {
    index_.node = node;
    index_.open_error = why;
  }
  bool Next(CutOnNode*) override { return false; }
  NodeIndex Progress() override { return index_; }
  std::vector<BaseSnapshot> Snapshots() override { return {}; }
  uint64_t LastStartTs() override { return 0; }

 private:
  NodeIndex index_;
};

}  // namespace

std::unique_ptr<CutFeed> UnreadableFeed(const std::string& node, const std::string& why) {
  return std::make_unique<UnreadableFeedImpl>(node, why);
}

wal::Result<std::unique_ptr<CutFeed>> WalFeed(const std::string& node, const std::string& wal_dir) {
  auto stream = NodeIndexStream::Open(node, wal_dir);
  if (!stream.ok()) return stream.status();
  return std::unique_ptr<CutFeed>(std::make_unique<WalFeedImpl>(std::move(stream).value()));
}

}  // namespace cut
