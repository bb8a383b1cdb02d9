// The commits a node's WAL holds near its cuts, in WAL order, with the writes of each
// (partition, key hash, counter) and its participants: what classifying a cut's window
// needs, and no more. The cut index appends as it reads and drops what no open cut's
// window can reach, so memory follows the windows, not the log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "libcut/hash.h"
#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

class VarintWriter;
class VarintReader;

// A key is known by its partition and the XXH3 of its bytes: the per-key check needs
// identity, not the bytes, and a window holds many writes.
struct Write {
  uint32_t cache = 0;
  uint32_t partition = 0;
  uint64_t key_hash = 0;
  uint64_t counter = 0;
};

// Commit::ignite_participants of a transaction held by every node.
constexpr uint8_t kAllNodes = 255;

// 56 bytes: the pointer's two fields lie apart, so that no padding is left.
struct Commit {
  wal::TxId xid;
  uint64_t ptr_segment = 0;  // its place (ptr())
  uint32_t ptr_offset = 0;
  // The participants' node orders: bits of a mask when all are below 64, or else an
  // index into the window's table of participant sets.
  uint32_t participant_set = UINT32_MAX;
  uint64_t participant_mask = 0;
  uint64_t writes_begin = 0;  // its writes: positions [begin, begin + count) of the window's
  uint32_t writes_count = 0;
  // Apache Ignite: how many nodes its TX_RECORD names as participants (distinct ids, at
  // most 254; kAllNodes where a partition's backups are every other node; 0 when it
  // names none). Ignite's ids are not node orders: the mask stays empty.
  uint8_t ignite_participants = 0;
  wal::Pointer ptr() const { return {ptr_segment, ptr_offset}; }
  void set_ptr(const wal::Pointer& p) {
    ptr_segment = p.segment;
    ptr_offset = p.offset;
  }
  // Computed, not kept: a window holds many commits.
  uint64_t hash() const { return HashTxId(xid); }
};
static_assert(sizeof(Commit) == 56);

// A queue in blocks of a fixed size: pushed at the back, popped at the front, indexed
// from it. Growing never copies what it holds (a vector doubling would hold three
// times its contents while it moves them), and a block popped empty is kept for the
// next push, so a window that slides reuses its memory.
template <typename T>
class Fifo {
 public:
  // Elements per block: a window of a few commits (one per node, and hundreds of nodes
  // may be read at once) takes one small block, a long one many.
  static constexpr size_t kBlock = size_t{1} << 10;

  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  T& operator[](size_t i) { return At(head_ + i); }
  const T& operator[](size_t i) const { return At(head_ + i); }
  const T& front() const { return At(head_); }
  void push_back(const T& x) {
    if (tail_ == blocks_.size() * kBlock + base_) Grow();
    At(tail_) = x;
    ++tail_;
  }
  template <typename It>
  void append(It b, It e) {
    for (; b != e; ++b) push_back(*b);
  }
  // Keeps the first n.
  void truncate(size_t n) { tail_ = head_ + n; }
  void pop_front(size_t n = 1) {
    head_ += n;
    while (head_ - base_ >= kBlock) {
      spare_.push_back(std::move(blocks_.front()));
      blocks_.erase(blocks_.begin());
      base_ += kBlock;
    }
    if (spare_.size() > 1) spare_.resize(1);
  }

 private:
  // Positions count from the queue's first push; block 0 of blocks_ holds base_ onwards.
  T& At(size_t pos) { return blocks_[(pos - base_) / kBlock][(pos - base_) % kBlock]; }
  const T& At(size_t pos) const { return blocks_[(pos - base_) / kBlock][(pos - base_) % kBlock]; }
  void Grow() {
    if (spare_.empty()) {
      blocks_.push_back(std::make_unique<T[]>(kBlock));
    } else {
      blocks_.push_back(std::move(spare_.back()));
      spare_.pop_back();
    }
  }

  std::vector<std::unique_ptr<T[]>> blocks_;
  std::vector<std::unique_ptr<T[]>> spare_;
  size_t base_ = 0;  // the position of blocks_[0][0]
  size_t head_ = 0;
  size_t tail_ = 0;
};

class CommitWindow {
 public:
  // A write of transaction `e.xid` (not the null id): held until its commit or rollback.
  void OnWrite(const wal::DataEntry& e);
  // A COMMITTED or UNKNOWN TX_RECORD, placed at `at` (commit_place.h): a commit, with the
  // writes held for it.
  void OnCommit(const wal::TxView& t, const wal::Pointer& at);
  // A ROLLED_BACK TX_RECORD: its held writes are dropped.
  void OnRollback(const wal::TxId& xid);
  // f(xid) for each transaction with writes held (not yet committed or rolled back).
  template <typename F>
  void ForEachHeld(F&& f) const {
    if (!last_writes_.empty()) f(last_xid_);
    for (const auto& [xid, writes] : pending_) f(xid);
  }

  // Puts the commits placed before commits already in (Apache Ignite's) in their place;
  // the window is read (size, [], LowerBound, ForEachWrite of a commit) only settled.
  void Settle();
  size_t size() const { return commits_.size(); }
  const Commit& operator[](size_t i) const { return commits_[i]; }
  // The first commit at index `from` or later whose pointer is not below `p`.
  size_t LowerBound(size_t from, const wal::Pointer& p) const;

  // f(const Write&) for each write of commit `k`, in WAL order.
  template <typename F>
  void ForEachWrite(const Commit& k, F&& f) const {
    for (uint64_t w = k.writes_begin; w < k.writes_begin + k.writes_count; ++w) f(writes_[w - writes_base_]);
  }
  // The node orders of commit `k`'s participants, sorted, unique.
  std::vector<uint16_t> Participants(const Commit& k) const;
  // f(uint16_t order) for each of them, in that order.
  template <typename F>
  void ForEachParticipant(const Commit& k, F&& f) const {
    if (k.participant_set != UINT32_MAX) {
      for (const uint16_t order : participant_sets_[k.participant_set]) f(order);
      return;
    }
    for (uint64_t m = k.participant_mask; m != 0; m &= m - 1) f(static_cast<uint16_t>(__builtin_ctzll(m)));
  }

  // Commits before `keep` are needed by no cut any more.
  void DropBefore(const wal::Pointer& keep);

  // The state, for a reading resumed later (NodeIndexStream checkpoints, index_state.cc).
  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  struct OrdersHash {
    size_t operator()(const std::vector<uint16_t>& v) const;
  };
  uint32_t Intern(const std::vector<uint16_t>& set);

  std::unordered_map<wal::TxId, std::vector<Write>, wal::TxIdHash> pending_;
  // A transaction's writes usually come just before its commit: they gather in one
  // reused slot, and only interleaved transactions go to the map.
  wal::TxId last_xid_;
  std::vector<Write> last_writes_;
  Fifo<Write> writes_;          // the writes of the commits, in order
  uint64_t writes_base_ = 0;    // the position of writes_.front()
  Fifo<Commit> commits_;        // in order of place
  std::vector<Commit> placed_;  // placed behind commits_.back(), until Settle
  std::unordered_map<std::vector<uint16_t>, uint32_t, OrdersHash> participant_ids_;
  std::vector<std::vector<uint16_t>> participant_sets_;
  std::vector<uint16_t> scratch_;
};

}  // namespace cut
