// The open-addressing table every keyed lookup of libcut is built on: one flat array of
// slots, linear probing, emptied in one step by a generation (a slot is in use when it
// carries the table's generation), deletion by backward shift so probes never meet
// tombstones. No allocation per entry.
//
// Traits: `using Key` (small, with ==), `static uint64_t Hash(const Key&)` (well mixed:
// the low bits pick the slot), `static Key KeyOf(const Entry&)`, and
// `static void Init(Entry*, const Key&)`, which gives a fresh entry its key.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cut {

template <typename Entry, typename Traits>
class FlatTable {
 public:
  using Key = typename Traits::Key;

  // Empties the table and sizes it for about `expected` entries (it grows past that).
  void Reset(size_t expected = 0) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    size_ = 0;
    if (slots_.size() >= cap && ++gen_ != 0) return;
    slots_.assign(std::max(cap, slots_.size()), Slot{});
    mask_ = slots_.size() - 1;
    gen_ = 1;
    ++layout_;
  }

  // Empties the table and gives its memory back (Reset keeps it for the next use).
  void Free() {
    std::vector<Slot>().swap(slots_);
    Reset(0);
  }
  size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

  // The entry of `k`, made by Traits::Init when there is none; true when made. The
  // pointer is valid until the next Upsert, Erase or Reset.
  std::pair<Entry*, bool> Upsert(const Key& k) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    for (size_t i = Traits::Hash(k) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.gen != gen_) {
        s.entry = Entry{};
        s.gen = gen_;
        Traits::Init(&s.entry, k);
        ++size_;
        return {&s.entry, true};
      }
      if (Traits::KeyOf(s.entry) == k) return {&s.entry, false};
    }
  }

  const Entry* Find(const Key& k) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Traits::Hash(k) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.gen != gen_) return nullptr;
      if (Traits::KeyOf(s.entry) == k) return &s.entry;
    }
  }
  Entry* Find(const Key& k) { return const_cast<Entry*>(std::as_const(*this).Find(k)); }

  // Removes an entry Find or Upsert returned.
  void Erase(Entry* e) {
    size_t hole = static_cast<size_t>(reinterpret_cast<Slot*>(e) - slots_.data());
    for (size_t i = (hole + 1) & mask_; slots_[i].gen == gen_; i = (i + 1) & mask_) {
      const size_t home = Traits::Hash(KeyOf(slots_[i])) & mask_;
      // Move the entry back into the hole unless its home lies cyclically in (hole, i].
      if (((i - home) & mask_) >= ((i - hole) & mask_)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole].gen = gen_ - 1;
    --size_;
  }

  size_t size() const { return size_; }

  // f(const Entry&) for every entry, in slot order (not an order to show users).
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.gen == gen_) f(s.entry);
    }
  }

  // Changes whenever entries may have moved in memory: pointers kept across calls are
  // valid only while it stays the same.
  uint64_t layout() const { return layout_; }

 private:
  // The entry first: an Entry* is a Slot*.
  struct Slot {
    Entry entry{};
    uint32_t gen = 0;
  };
  static Key KeyOf(const Slot& s) { return Traits::KeyOf(s.entry); }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    const uint32_t old_gen = gen_;
    slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
    mask_ = slots_.size() - 1;
    gen_ = 1;
    ++layout_;
    for (const Slot& o : old) {
      if (o.gen != old_gen) continue;
      size_t i = Traits::Hash(KeyOf(o)) & mask_;
      while (slots_[i].gen == gen_) i = (i + 1) & mask_;
      slots_[i].entry = o.entry;
      slots_[i].gen = gen_;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  uint32_t gen_ = 1;
  uint64_t layout_ = 0;
};

}  // namespace cut
