// Open-addressing hash maps for the lookups a cut window needs: flat arrays, no
// allocation per entry, cleared in one pass, small enough to stay in the cache.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "libwal/ids.h"

namespace cut {

// The hash every table here files a transaction id under.
inline uint64_t HashTxId(const wal::TxId& x) {
  uint64_t h = x.order * 0x9E3779B97F4A7C15ULL ^ (uint64_t{x.node_order} << 40 | x.topology_version);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  return h;
}

// An index over ids the caller keeps in an array of its own: each slot is eight bytes,
// a tag of the id's hash and the id's position in that array, and no copy of the ids is
// made (a tag that matches is confirmed through `id_at`). For a window's table, whose
// ids are already in the window's transactions, that halves what the table touches.
// Positions are 32 bits: an index holds fewer than 2^32 ids.
class IdIndex {
 public:
  void Reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    if (slots_.size() < cap) slots_.resize(cap);
    std::fill_n(slots_.begin(), cap, uint64_t{0});
    mask_ = cap - 1;
    size_ = 0;
  }

  // The position of `x`, or `position` after recording it there; true when recorded.
  template <typename IdAt>
  std::pair<uint32_t, bool> Insert(const wal::TxId& x, uint32_t position, IdAt&& id_at) {
    return Insert(x, HashTxId(x), position, id_at);
  }
  // The same, with `h` = HashTxId(x) already known.
  template <typename IdAt>
  std::pair<uint32_t, bool> Insert(const wal::TxId& x, uint64_t h, uint32_t position, IdAt&& id_at) {
    if (slots_.empty()) Reset(0);
    if ((size_ + 1) * 2 > mask_ + 1) Grow(id_at);
    const uint64_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t e = slots_[i];
      if (e == 0) {
        slots_[i] = tag | position;
        ++size_;
        return {position, true};
      }
      if ((e & kTagMask) == tag && id_at(static_cast<uint32_t>(e)) == x) return {static_cast<uint32_t>(e), false};
    }
  }

  // The position of `x`, or UINT32_MAX.
  template <typename IdAt>
  uint32_t Find(const wal::TxId& x, IdAt&& id_at) const {
    if (slots_.empty()) return UINT32_MAX;
    const uint64_t h = HashTxId(x);
    const uint64_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t e = slots_[i];
      if (e == 0) return UINT32_MAX;
      if ((e & kTagMask) == tag && id_at(static_cast<uint32_t>(e)) == x) return static_cast<uint32_t>(e);
    }
  }

  // A hint that an id of hash `h` is looked up soon: its first slot is fetched into the
  // cache. Loops over many ids call it a few ids ahead, so that the misses overlap.
  void Prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }

 private:
  static constexpr uint64_t kTagMask = 0xFFFFFFFF00000000ULL;
  static uint64_t Tag(uint64_t h) { return (h & kTagMask) | (uint64_t{1} << 32); }

  template <typename IdAt>
  void Grow(IdAt&& id_at) {
    std::vector<uint64_t> old(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(mask_ + 1));
    const size_t cap = (mask_ + 1) * 2;
    slots_.assign(cap, 0);
    mask_ = cap - 1;
    for (const uint64_t e : old) {
      if (e == 0) continue;
      const uint64_t h = HashTxId(id_at(static_cast<uint32_t>(e)));
      size_t i = h & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = e;
    }
  }

  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// A map from transaction id to a 32-bit value: an IdIndex over the keys, kept in
// insertion order, and their values.
class TxTable {
 public:
  // Empties the table and sizes it for about `expected` entries (it grows past that).
  void Reset(size_t expected) {
    index_.Reset(expected);
    keys_.clear();
    values_.clear();
  }

  // The value of `x`, inserting `value` first if `x` is not there; true when inserted.
  // The pointer is valid until the next Insert or Reset.
  std::pair<uint32_t*, bool> Insert(const wal::TxId& x, uint32_t value) {
    const auto [at, fresh] = index_.Insert(x, static_cast<uint32_t>(keys_.size()), KeyAt());
    if (fresh) {
      keys_.push_back(x);
      values_.push_back(value);
    }
    return {&values_[at], fresh};
  }

  const uint32_t* Find(const wal::TxId& x) const {
    const uint32_t at = index_.Find(x, KeyAt());
    return at == UINT32_MAX ? nullptr : &values_[at];
  }

  size_t size() const { return keys_.size(); }

 private:
  struct KeyOf {
    const std::vector<wal::TxId>* keys;
    const wal::TxId& operator()(uint32_t i) const { return (*keys)[i]; }
  };
  KeyOf KeyAt() const { return KeyOf{&keys_}; }

  IdIndex index_;
  std::vector<wal::TxId> keys_;    // in insertion order
  std::vector<uint32_t> values_;   // by key
};

// A small sorted set of transaction ids (a Finish record's before or after set) asked
// about every commit of a window: a 256-bit filter answers most of the misses.
class IdSet {
 public:
  void Assign(std::vector<wal::TxId> ids) {
    ids_ = std::move(ids);
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    for (auto& w : filter_) w = 0;
    for (const auto& x : ids_) {
      const unsigned b = Bit(x);
      filter_[b >> 6] |= uint64_t{1} << (b & 63);
    }
  }
  bool Contains(const wal::TxId& x) const {
    const unsigned b = Bit(x);
    if ((filter_[b >> 6] >> (b & 63) & 1) == 0) return false;
    return std::binary_search(ids_.begin(), ids_.end(), x);
  }
  const std::vector<wal::TxId>& ids() const { return ids_; }  // sorted, unique

 private:
  static unsigned Bit(const wal::TxId& x) {
    const uint64_t h = (x.order ^ (uint64_t{x.node_order} << 48) ^ (uint64_t{x.topology_version} << 32)) * 0x9E3779B97F4A7C15ULL;
    return static_cast<unsigned>(h >> 56);
  }
  std::vector<wal::TxId> ids_;
  uint64_t filter_[4] = {0, 0, 0, 0};
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
    for (size_t i = Index(hash, partition);; i = (i + 1) & mask_) {
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

  size_t Index(uint64_t hash, uint32_t partition) const {
    return (hash ^ (uint64_t{partition} * 0x9E3779B97F4A7C15ULL)) & mask_;
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

// Per partition copy (cache and partition) of a window: the highest counter written
// Before and the lowest written After. When the first stays below the second, no key of
// the partition can break the per-key order, and its keys need no table of their own.
class PartitionTable {
 public:
  struct Entry {
    uint64_t id = 0;  // cache << 32 | partition
    uint64_t max_before = 0;
    uint64_t min_after = UINT64_MAX;
    bool any_before = false;
    uint32_t gen = 0;
  };

  void Reset() {
    size_ = 0;
    if (slots_.empty() || ++gen_ == 0) {
      slots_.assign(std::max<size_t>(slots_.size(), 64), Entry{});
      mask_ = slots_.size() - 1;
      gen_ = 1;
      std::fill(direct_.begin(), direct_.end(), nullptr);
    }
  }

  void Add(uint32_t cache, uint32_t partition, uint64_t counter, bool before) {
    // The partitions of one cache (the first seen) go by their number straight to their
    // slot: a window's writes mostly hit those few, and skip hashing and probing.
    Entry* e;
    if (cache == direct_cache_ && partition < direct_.size() && direct_[partition] != nullptr &&
        direct_[partition]->gen == gen_ && direct_[partition]->id == (uint64_t{cache} << 32 | partition)) {
      e = direct_[partition];
    } else {
      e = Slot(uint64_t{cache} << 32 | partition);
      if (direct_.empty()) direct_cache_ = cache;
      if (cache == direct_cache_ && partition < 65536) {
        if (partition >= direct_.size()) direct_.resize(partition + 1, nullptr);
        direct_[partition] = e;
      }
    }
    if (before) {
      e->max_before = e->any_before ? std::max(e->max_before, counter) : counter;
      e->any_before = true;
    } else {
      e->min_after = std::min(e->min_after, counter);
    }
  }

  // Whether some key of the partition may have a Before write at or above an After one.
  bool MayConflict(uint32_t cache, uint32_t partition) const {
    const Entry* e = Find(uint64_t{cache} << 32 | partition);
    return e != nullptr && Conflicts(*e);
  }

  // Whether any partition may.
  bool AnyConflict() const {
    return std::any_of(slots_.begin(), slots_.end(), [&](const Entry& e) { return e.gen == gen_ && Conflicts(e); });
  }

 private:
  static bool Conflicts(const Entry& e) {
    return e.any_before && e.min_after != UINT64_MAX && e.max_before >= e.min_after;
  }

  static size_t Hash(uint64_t id) {
    uint64_t h = id * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }

  Entry* Slot(uint64_t id) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    for (size_t i = Hash(id) & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.gen != gen_) {
        e = Entry{};
        e.id = id;
        e.gen = gen_;
        ++size_;
        return &e;
      }
      if (e.id == id) return &e;
    }
  }

  const Entry* Find(uint64_t id) const {
    for (size_t i = Hash(id) & mask_;; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.gen != gen_) return nullptr;
      if (e.id == id) return &e;
    }
  }

  void Grow() {
    std::fill(direct_.begin(), direct_.end(), nullptr);  // the slots move
    std::vector<Entry> old = std::move(slots_);
    const uint32_t old_gen = gen_;
    slots_.assign(old.size() * 2, Entry{});
    mask_ = slots_.size() - 1;
    gen_ = 1;
    size_ = 0;
    for (const Entry& o : old) {
      if (o.gen != old_gen) continue;
      Entry* e = Slot(o.id);
      *e = o;
      e->gen = gen_;
    }
  }

  std::vector<Entry> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  uint32_t gen_ = 0;
  uint32_t direct_cache_ = 0;
  std::vector<Entry*> direct_;  // by partition of direct_cache_: its slot, if still its
};

}  // namespace cut
