// Tables keyed by transaction id: an index over ids the caller keeps (IdIndex), and a
// map from id to a 32-bit value built on it (TxTable).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "libcut/hash.h"
#include "libwal/ids.h"

namespace cut {

// An index over ids the caller keeps in an array of its own: each slot is eight bytes,
// a tag of the id's hash and the id's position in that array, and no copy of the ids is
// made (a tag that matches is confirmed through `id_at`). For a window's table, whose
// ids are already in the window's transactions, that halves what the table touches.
// Positions are 32 bits: an index holds fewer than 2^32 ids. (Not a FlatTable: its
// slots hold no key, and the array they point into is the caller's.)
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

  // Empties the table and gives its memory back (Reset keeps it for the next use).
  void Free() {
    std::vector<uint64_t>().swap(slots_);
    Reset(0);
  }
  size_t bytes() const { return slots_.capacity() * sizeof(uint64_t); }

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

  // Empties the table and gives its memory back.
  void Free() {
    index_.Free();
    std::vector<wal::TxId>().swap(keys_);
    std::vector<uint32_t>().swap(values_);
  }
  size_t bytes() const {
    return index_.bytes() + keys_.capacity() * sizeof(wal::TxId) + values_.capacity() * sizeof(uint32_t);
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
  std::vector<wal::TxId> keys_;   // in insertion order
  std::vector<uint32_t> values_;  // by key
};

}  // namespace cut
