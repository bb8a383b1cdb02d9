// The commits a node's WAL holds near its cuts, in WAL order, with the writes of each
// (partition, key hash, counter) and its participants: what classifying a cut's window
// needs, and no more. The cut index appends as it reads and drops what no open cut's
// window can reach, so memory follows the windows, not the log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

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
  // index into the window's table of participant sets.
  uint64_t participant_mask = 0;
  uint32_t participant_set = UINT32_MAX;
  uint32_t writes_count = 0;
  uint64_t writes_begin = 0;  // its writes: positions [begin, begin + count) of the window's
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

class CommitWindow {
 public:
  // A write of transaction `e.xid` (not the null id): held until its commit or rollback.
  void OnWrite(const wal::DataEntry& e);
  // A COMMITTED or UNKNOWN TX_RECORD at `at`: a commit, with the writes held for it.
  void OnCommit(const wal::TxView& t, const wal::Pointer& at);
  // A ROLLED_BACK TX_RECORD: its held writes are dropped.
  void OnRollback(const wal::TxId& xid);

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

  // Commits before `keep` are needed by no cut any more.
  void DropBefore(const wal::Pointer& keep);

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
  Fifo<Write> writes_;        // the writes of the commits, in order
  uint64_t writes_base_ = 0;  // the position of writes_.front()
  Fifo<Commit> commits_;
  std::unordered_map<std::vector<uint16_t>, uint32_t, OrdersHash> participant_ids_;
  std::vector<std::vector<uint16_t>> participant_sets_;
  std::vector<uint16_t> scratch_;
};

}  // namespace cut
