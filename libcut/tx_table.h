// An open-addressing hash map from transaction id to a 32-bit value, for the lookups a
// cut window needs: one flat array, no allocation per entry, cleared in one pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "libwal/ids.h"

namespace cut {

class TxTable {
 public:
  // Empties the table and sizes it for about `expected` entries. Slots are stamped with
  // the table's generation, so emptying a table big enough already writes nothing.
  void Reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    size_ = 0;
    if (slots_.size() >= cap && ++gen_ != 0) return;
    slots_.assign(std::max(cap, slots_.size()), Slot{});
    mask_ = slots_.size() - 1;
    gen_ = 1;
  }

  // The value of `x`, inserting `value` first if `x` is not there; true when inserted.
  std::pair<uint32_t*, bool> Insert(const wal::TxId& x, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    for (size_t i = Hash(x) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.gen != gen_) {
        s = Slot{x, value, gen_};
        ++size_;
        return {&s.value, true};
      }
      if (s.key == x) return {&s.value, false};
    }
  }

  const uint32_t* Find(const wal::TxId& x) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Hash(x) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.gen != gen_) return nullptr;
      if (s.key == x) return &s.value;
    }
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    wal::TxId key;
    uint32_t value = 0;
    uint32_t gen = 0;  // in use when equal to the table's
  };

  static size_t Hash(const wal::TxId& x) {
    uint64_t h = x.order * 0x9E3779B97F4A7C15ULL ^ (uint64_t{x.node_order} << 40 | x.topology_version);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return static_cast<size_t>(h);
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    const uint32_t old_gen = gen_;
    slots_.clear();
    Reset(old.empty() ? 8 : old.size());
    for (const Slot& s : old) {
      if (s.gen == old_gen) Insert(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  uint32_t gen_ = 1;
};

// Per key of a window (cache, partition and the XXH3 of the key bytes): the highest
// counter written Before (and by which commit) and the lowest written After.
class KeyTable {
 public:
  struct Entry {
    uint64_t hash = 0;
    uint32_t partition = 0;
    uint32_t cache = 0;
    uint64_t max_before = 0;
    uint64_t min_after = UINT64_MAX;
    uint32_t before_commit = UINT32_MAX;  // UINT32_MAX: no Before write
    uint32_t gen = 0;                     // in use when equal to the table's
  };

  // As TxTable::Reset.
  void Reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    size_ = 0;
    if (slots_.size() >= cap && ++gen_ != 0) return;
    slots_.assign(std::max(cap, slots_.size()), Entry{});
    mask_ = slots_.size() - 1;
    gen_ = 1;
  }
  bool used(const Entry& e) const { return e.gen == gen_; }

  // A write of `counter` by commit `commit` (index in its window), on the Before side or not.
  void Add(uint64_t hash, uint32_t partition, uint32_t cache, uint64_t counter, bool before, uint32_t commit) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    Entry* e = Slot(hash, partition, cache);
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

  const std::vector<Entry>& slots() const { return slots_; }

 private:
  Entry* Slot(uint64_t hash, uint32_t partition, uint32_t cache) {
    for (size_t i = (hash ^ (uint64_t{partition} * 0x9E3779B97F4A7C15ULL)) & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.gen != gen_) {
        e = Entry{};
        e.gen = gen_;
        e.hash = hash;
        e.partition = partition;
        e.cache = cache;
        ++size_;
        return &e;
      }
      if (e.hash == hash && e.partition == partition && e.cache == cache) return &e;
    }
  }

  void Grow() {
    std::vector<Entry> old = std::move(slots_);
    const uint32_t old_gen = gen_;
    slots_.clear();
    Reset(old.empty() ? 8 : old.size());
    for (const Entry& o : old) {
      if (o.gen != old_gen) continue;
      Entry* e = Slot(o.hash, o.partition, o.cache);
      *e = o;
      e->gen = gen_;
    }
  }

  std::vector<Entry> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  uint32_t gen_ = 1;
};

}  // namespace cut
