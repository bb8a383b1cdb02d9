// The flat tables of the cut index and the cluster check: lookups, growth past the size
// asked for, and emptying by generation (nothing of a previous use may show through).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "libcut/flat_table.h"

#include "libcut/id_index.h"
#include "libcut/order_tables.h"

namespace cut {
namespace {

wal::TxId Tx(uint64_t i) { return wal::TxId{1 + static_cast<uint32_t>(i % 3), static_cast<uint32_t>(i % 7), i}; }

TEST(TxTable, InsertsFindsAndGrowsPastTheExpectedSize) {
  TxTable t;
  t.Reset(4);
  for (uint64_t i = 0; i < 5000; ++i) {
    auto [v, fresh] = t.Insert(Tx(i), static_cast<uint32_t>(i * 2));
    ASSERT_TRUE(fresh);
    ASSERT_EQ(*v, i * 2);
  }
  EXPECT_EQ(t.size(), 5000u);
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint32_t* v = t.Find(Tx(i));
    ASSERT_NE(v, nullptr) << i;
    EXPECT_EQ(*v, i * 2);
    auto [again, fresh] = t.Insert(Tx(i), 7);
    EXPECT_FALSE(fresh);
    EXPECT_EQ(*again, i * 2);  // the first value stays
  }
  EXPECT_EQ(t.Find(Tx(5000)), nullptr);
  EXPECT_EQ(t.Find(wal::TxId{}), nullptr);
}

TEST(TxTable, ResetForgetsEverythingAcrossManyGenerations) {
  TxTable t;
  for (uint64_t round = 0; round < 300; ++round) {
    t.Reset(100);
    EXPECT_EQ(t.size(), 0u);
    for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(t.Find(Tx(round * 1000 + i - (round ? 1000 : 0))), nullptr);
    for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(t.Insert(Tx(round * 1000 + i), 1).second);
  }
}

TEST(KeyTable, KeepsTheFirstHighestBeforeAndTheLowestAfterPerKey) {
  KeyTable k;
  for (int use = 0; use < 3; ++use) {
    k.Reset(2);
    // Key A: Before 5 (commit 1), Before 9 (commit 2), Before 9 (commit 3), After 7, After 4.
    k.Add(0xA, 1, 1, 5, true, 1);
    k.Add(0xA, 1, 1, 9, true, 2);
    k.Add(0xA, 1, 1, 9, true, 3);
    k.Add(0xA, 1, 1, 7, false, 4);
    k.Add(0xA, 1, 1, 4, false, 5);
    // The same hash in another partition is another key; many more keys force growth.
    k.Add(0xA, 2, 1, 1, false, 6);
    for (uint64_t h = 100; h < 1100; ++h) k.Add(h, 3, 1, h, true, 7);
    std::map<std::pair<uint64_t, uint32_t>, KeyTable::Entry> seen;
    k.ForEach([&](const KeyTable::Entry& e) { seen[{e.hash, e.partition}] = e; });
    ASSERT_EQ(seen.size(), 1002u);
    const auto& a = seen.at({0xA, 1});
    EXPECT_EQ(a.max_before, 9u);
    EXPECT_EQ(a.before_commit, 2u);
    EXPECT_EQ(a.min_after, 4u);
    const auto& b = seen.at({0xA, 2});
    EXPECT_EQ(b.before_commit, UINT32_MAX);
    EXPECT_EQ(b.min_after, 1u);
  }
}

// An index over ids kept by the caller: positions come back for ids seen before, growth
// past the size asked for rehashes through the caller's array, and a reset forgets all.
TEST(IdIndex, FindsPositionsInTheCallersArrayAndGrows) {
  IdIndex index;
  std::vector<wal::TxId> ids;
  auto id_at = [&](uint32_t i) -> const wal::TxId& { return ids[i]; };
  for (int round = 0; round < 3; ++round) {
    index.Reset(4);
    ids.clear();
    // Every id twice: the second time finds the first position.
    for (uint64_t i = 0; i < 6000; ++i) {
      const wal::TxId x = Tx(i / 2 + static_cast<uint64_t>(round) * 100000);
      const auto [at, fresh] = index.Insert(x, static_cast<uint32_t>(ids.size()), id_at);
      ASSERT_EQ(fresh, i % 2 == 0) << i;
      if (fresh) {
        ASSERT_EQ(at, ids.size());
        ids.push_back(x);
      } else {
        ASSERT_EQ(ids[at], x);
      }
    }
    ASSERT_EQ(ids.size(), 3000u);
    for (uint32_t k = 0; k < ids.size(); ++k) ASSERT_EQ(index.Find(ids[k], id_at), k);
    // Nothing of an earlier round shows through.
    if (round > 0) {
      EXPECT_EQ(index.Find(Tx(static_cast<uint64_t>(round - 1) * 100000), id_at), UINT32_MAX);
    }
    EXPECT_EQ(index.Find(wal::TxId{}, id_at), UINT32_MAX);
  }
}

struct Counted {
  uint64_t key = 0;
  uint64_t value = 0;
};
// A deliberately poor hash (many keys per home slot) so that probing runs are long and
// deletion must shift entries back across them.
struct CountedTraits {
  using Key = uint64_t;
  static uint64_t Hash(uint64_t k) { return k / 8; }
  static uint64_t KeyOf(const Counted& e) { return e.key; }
  static void Init(Counted* e, uint64_t k) { e->key = k; }
};

// Inserts, finds and erases at random against std::map: every lookup agrees on presence,
// and every so often each key of the map is found with its value, through growth,
// backward-shift deletion across wrapped probe runs, and resets.
TEST(FlatTable, AgreesWithAMapUnderRandomInsertsAndErases) {
  FlatTable<Counted, CountedTraits> t;
  std::map<uint64_t, uint64_t> m;
  std::mt19937_64 rng(7);
  for (size_t round = 0; round < 4; ++round) {
    t.Reset(round * 10);
    m.clear();
    for (uint64_t step = 0; step < 20000; ++step) {
      const uint64_t k = rng() % 512;
      if (rng() % 3 == 0) {
        Counted* e = t.Find(k);
        ASSERT_EQ(e != nullptr, m.count(k) == 1) << k;
        if (e != nullptr) t.Erase(e);
        m.erase(k);
      } else {
        auto [e, fresh] = t.Upsert(k);
        ASSERT_EQ(fresh, m.count(k) == 0) << k;
        e->value += step;
        m[k] += step;
      }
      ASSERT_EQ(t.size(), m.size());
      if (step % 97 == 0) {
        for (const auto& [key, value] : m) {
          const Counted* e = t.Find(key);
          ASSERT_NE(e, nullptr) << key;
          ASSERT_EQ(e->value, value) << key;
        }
        size_t seen = 0;
        t.ForEach([&](const Counted& e) {
          ++seen;
          ASSERT_EQ(m.at(e.key), e.value);
        });
        ASSERT_EQ(seen, m.size());
      }
    }
  }
}

// Pointers kept across calls are valid while layout() stays: it changes when the
// table grows, and a reset that reuses the slots keeps nothing visible.
TEST(FlatTable, LayoutChangesWhenEntriesMove) {
  FlatTable<Counted, CountedTraits> t;
  t.Reset(4);
  const uint64_t before = t.layout();
  t.Upsert(1);
  for (uint64_t k = 2; k < 100; ++k) t.Upsert(k * 8);
  EXPECT_NE(t.layout(), before);
  const uint64_t grown = t.layout();
  t.Reset(4);
  EXPECT_EQ(t.layout(), grown);  // the same slots, a new generation
  EXPECT_EQ(t.Find(1), nullptr);
  EXPECT_EQ(t.size(), 0u);
}

// The partition check keeps a direct array of entry pointers: it must survive the table
// growing under it (many partitions of the direct cache, then of others).
TEST(PartitionTable, FindsConflictsThroughGrowth) {
  PartitionTable p;
  for (int use = 0; use < 3; ++use) {
    p.Reset();
    for (uint32_t part = 0; part < 3000; ++part) p.Add(1, part, 10, true);
    for (uint32_t part = 0; part < 3000; ++part) p.Add(2, part, 10, false);
    for (uint32_t part = 0; part < 3000; ++part) p.Add(1, part, part == 1234 ? 5 : 50, false);
    EXPECT_TRUE(p.AnyConflict());
    for (uint32_t part = 0; part < 3000; ++part) EXPECT_EQ(p.MayConflict(1, part), part == 1234) << part;
    EXPECT_FALSE(p.MayConflict(2, 1234));
    EXPECT_FALSE(p.MayConflict(3, 1234));
  }
}

// Free gives a table's memory back and leaves it empty and usable: what a classifier does
// with its large tables after each cut.
TEST(TablesFree, GiveTheMemoryBackAndWorkAgain) {
  TxTable t;
  t.Reset(4);
  for (uint64_t i = 0; i < 100000; ++i) t.Insert(Tx(i), static_cast<uint32_t>(i));
  EXPECT_GT(t.bytes(), size_t{1} << 20);
  t.Free();
  EXPECT_LT(t.bytes(), 1024u);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Find(Tx(5)), nullptr);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(t.Insert(Tx(i + 7), 1).second);
  EXPECT_NE(t.Find(Tx(7)), nullptr);
  EXPECT_EQ(t.Find(Tx(5)), nullptr);

  PartitionTable p;
  p.Reset();
  for (uint32_t part = 0; part < 100000; ++part) p.Add(1, part, 10, true);
  EXPECT_GT(p.bytes(), size_t{1} << 20);
  p.Free();
  EXPECT_LT(p.bytes(), 4096u);
  EXPECT_FALSE(p.AnyConflict());
  p.Reset();
  p.Add(1, 3, 10, true);
  p.Add(1, 3, 5, false);
  EXPECT_TRUE(p.MayConflict(1, 3));
  EXPECT_FALSE(p.MayConflict(1, 4));
}

}  // namespace
}  // namespace cut
