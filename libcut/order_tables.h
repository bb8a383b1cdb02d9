// The tables of the per-key order check of a cut's window (every Before write of a key
// precedes every After write): per partition copy first, then per key of the partitions
// that may break it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "libcut/flat_table.h"
#include "libcut/hash.h"

namespace cut {

// Per key of a window (cache, partition and the XXH3 of the key bytes): the highest
// counter written Before (and by which commit) and the lowest written After.
class KeyTable {
 public:
  struct Key {
    uint64_t hash = 0;
    uint32_t partition = 0;
    uint32_t cache = 0;
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    uint64_t hash = 0;
    uint32_t partition = 0;
    uint32_t cache = 0;
    uint64_t max_before = 0;
    uint64_t min_after = UINT64_MAX;
    uint32_t before_commit = UINT32_MAX;  // UINT32_MAX: no Before write
  };

  void Reset(size_t expected) { table_.Reset(expected); }
  void Free() { table_.Free(); }
  size_t bytes() const { return table_.bytes(); }

  // A write of `counter` by commit `commit` (index in its window), on the Before side or not.
  void Add(uint64_t hash, uint32_t partition, uint32_t cache, uint64_t counter, bool before, uint32_t commit) {
    Entry* e = table_.Upsert(Key{hash, partition, cache}).first;
    if (before) {
      // The first of the highest.
      if (e->before_commit == UINT32_MAX || counter > e->max_before) {
        e->max_before = counter;
        e->before_commit = commit;
      }
    } else {
      e->min_after = std::min(e->min_after, counter);
    }
  }

  // f(const Entry&) for every key, in no order to show users.
  template <typename F>
  void ForEach(F&& f) const {
    table_.ForEach(f);
  }

 private:
  struct Traits {
    using Key = KeyTable::Key;
    static uint64_t Hash(const Key& k) { return Mix64(k.hash ^ (uint64_t{k.partition} << 32 | k.cache)); }
    static Key KeyOf(const Entry& e) { return Key{e.hash, e.partition, e.cache}; }
    static void Init(Entry* e, const Key& k) {
      e->hash = k.hash;
      e->partition = k.partition;
      e->cache = k.cache;
    }
  };
  FlatTable<Entry, Traits> table_;
};

// Per partition copy (cache and partition) of a window: the highest counter written
// Before and the lowest written After. When the first stays below the second, no key of
// the partition can break the per-key order, and its keys need no table of their own.
class PartitionTable {
 public:
  void Reset() {
    table_.Reset(32);
    direct_.clear();
  }
  void Free() {
    table_.Free();
    std::vector<Entry*>().swap(direct_);
  }
  size_t bytes() const { return table_.bytes() + direct_.capacity() * sizeof(void*); }  // direct_ holds pointers

  void Add(uint32_t cache, uint32_t partition, uint64_t counter, bool before) {
    Entry* e = Get(cache, partition);
    if (before) {
      e->max_before = e->any_before ? std::max(e->max_before, counter) : counter;
      e->any_before = true;
    } else {
      e->min_after = std::min(e->min_after, counter);
    }
  }

  // Whether some key of the partition may have a Before write at or above an After one.
  bool MayConflict(uint32_t cache, uint32_t partition) const {
    const Entry* e = table_.Find(Id(cache, partition));
    return e != nullptr && Conflicts(*e);
  }

  // Whether any partition may.
  bool AnyConflict() const {
    bool any = false;
    table_.ForEach([&](const Entry& e) { any = any || Conflicts(e); });
    return any;
  }

 private:
  struct Entry {
    uint64_t id = 0;  // cache << 32 | partition
    uint64_t max_before = 0;
    uint64_t min_after = UINT64_MAX;
    bool any_before = false;
  };
  struct Traits {
    using Key = uint64_t;
    static uint64_t Hash(uint64_t id) { return Mix64(id * 0x9E3779B97F4A7C15ULL); }
    static uint64_t KeyOf(const Entry& e) { return e.id; }
    static void Init(Entry* e, uint64_t id) { e->id = id; }
  };
  static uint64_t Id(uint32_t cache, uint32_t partition) { return uint64_t{cache} << 32 | partition; }
  static bool Conflicts(const Entry& e) {
    return e.any_before && e.min_after != UINT64_MAX && e.max_before >= e.min_after;
  }

  // The partitions of one cache (the first seen) go by their number straight to their
  // entry: a window's writes mostly hit those few, and skip hashing and probing.
  Entry* Get(uint32_t cache, uint32_t partition) {
    if (cache == direct_cache_ && partition < direct_.size() && direct_layout_ == table_.layout()) {
      if (Entry* e = direct_[partition]; e != nullptr) return e;
    }
    Entry* e = table_.Upsert(Id(cache, partition)).first;
    if (direct_layout_ != table_.layout()) {
      std::fill(direct_.begin(), direct_.end(), nullptr);  // the entries moved
      direct_layout_ = table_.layout();
    }
    if (direct_.empty() && table_.size() == 1) direct_cache_ = cache;
    if (cache == direct_cache_ && partition < 65536) {
      if (partition >= direct_.size()) direct_.resize(partition + 1, nullptr);
      direct_[partition] = e;
    }
    return e;
  }

  FlatTable<Entry, Traits> table_;
  uint32_t direct_cache_ = 0;
  uint64_t direct_layout_ = 0;
  std::vector<Entry*> direct_;  // by partition of direct_cache_: its entry
};

}  // namespace cut
