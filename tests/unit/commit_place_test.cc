// Where an Apache Ignite commit lies for the side rule (libcut/commit_place.h), and the
// commit window that takes such a commit back to its place (libcut/commit_window.h).
#include <gtest/gtest.h>

#include <vector>

#include "libcut/commit_place.h"
#include "libcut/commit_window.h"
#include "libcut/varint_codec.h"

namespace {

using wal::Pointer;
using wal::TxId;

const TxId kA{1, 1, 10}, kB{1, 1, 11};

Pointer At(uint32_t offset) { return Pointer{2, offset}; }

TEST(CommitPlacer, CommitAfterACutRecordIsPlacedAtItsLastEntry) {
  cut::CommitPlacer p;
  p.OnWrite(kA, At(100));
  p.OnWrite(kA, At(120));
  p.OnCutRecord(At(200));  // a Start record
  p.OnCutRecord(At(240));  // its Finish record
  EXPECT_EQ(p.Place(kA, At(500)), At(120));
}

TEST(CommitPlacer, CommitWithNoCutRecordAfterItsEntriesStaysAtItsRecord) {
  cut::CommitPlacer p;
  p.OnCutRecord(At(50));
  p.OnWrite(kA, At(100));
  EXPECT_EQ(p.Place(kA, At(150)), At(150));
  // Entries after the cut record, the commit after them: the same.
  p.OnCutRecord(At(250));
  p.OnWrite(kB, At(300));
  EXPECT_EQ(p.Place(kB, At(400)), At(400));
}

TEST(CommitPlacer, InterleavedTransactionsKeepTheirOwnLastEntry) {
  cut::CommitPlacer p;
  p.OnWrite(kA, At(100));
  p.OnWrite(kB, At(110));
  p.OnWrite(kA, At(130));
  p.OnCutRecord(At(200));
  EXPECT_EQ(p.Place(kB, At(300)), At(110));
  EXPECT_EQ(p.Place(kA, At(310)), At(130));
}

TEST(CommitPlacer, PlacingOrRollingBackForgetsTheEntries) {
  cut::CommitPlacer p;
  p.OnWrite(kA, At(100));
  p.OnWrite(kB, At(110));
  p.Forget(kA);
  p.OnCutRecord(At(200));
  EXPECT_EQ(p.Place(kA, At(300)), At(300));  // no entries left: at its record
  EXPECT_EQ(p.Place(kB, At(310)), At(110));
  EXPECT_EQ(p.Place(kB, At(320)), At(320));  // a second role, with no entries of its own
}

TEST(CommitPlacer, SavedAndLoadedPlacesTheSame) {
  cut::CommitPlacer p;
  p.OnWrite(kA, At(100));
  p.OnWrite(kB, At(110));
  p.OnCutRecord(At(200));
  cut::VarintWriter o;
  p.Save(o);
  cut::CommitPlacer q;
  cut::VarintReader in(o.s.data(), o.s.size());
  q.Load(in);
  EXPECT_EQ(in.left(), 0u);
  EXPECT_EQ(q.Place(kA, At(300)), At(100));
  EXPECT_EQ(q.Place(kB, At(310)), At(110));
}

// kA writes, kB writes and commits at 300, kA's commit is placed at 120: the window
// holds kA first, and each commit keeps its own writes whatever is dropped.
TEST(CommitWindow, APlacedCommitGoesBackToItsPlaceWithItsWrites) {
  cut::CommitWindow w;
  auto write = [&](const TxId& x, uint64_t counter) {
    wal::DataEntry e;
    e.xid = x;
    e.partition = 7;
    e.counter = counter;
    e.key = "k";
    w.OnWrite(e);
  };
  auto commit = [&](const TxId& x, uint32_t at) {
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = x;
    w.OnCommit(t, At(at));
  };
  auto counters = [&](size_t i) {
    std::vector<uint64_t> v;
    w.ForEachWrite(w[i], [&](const cut::Write& x) { v.push_back(x.counter); });
    return v;
  };
  write(kA, 1);
  write(kB, 2);
  commit(kB, 300);
  commit(kA, 120);
  w.Settle();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].xid, kA);
  EXPECT_EQ(w[1].xid, kB);
  EXPECT_EQ(w.LowerBound(0, At(200)), 1u);
  w.DropBefore(At(50));  // drops nothing: kB's writes, before kA's in the queue, stay
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(counters(0), std::vector<uint64_t>{1});
  EXPECT_EQ(counters(1), std::vector<uint64_t>{2});
  {
    // The saved window holds them too (a write dropped would leave kB's outside it).
    cut::VarintWriter o;
    w.Save(o);
    cut::CommitWindow v;
    cut::VarintReader in(o.s.data(), o.s.size());
    v.Load(in);
    ASSERT_TRUE(in.ok()) << in.error();
    ASSERT_EQ(v.size(), 2u);
    std::vector<uint64_t> all;
    for (size_t i = 0; i < v.size(); ++i) v.ForEachWrite(v[i], [&](const cut::Write& x) { all.push_back(x.counter); });
    EXPECT_EQ(all, (std::vector<uint64_t>{1, 2}));
  }
  w.DropBefore(At(200));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(counters(0), std::vector<uint64_t>{2});
}

// Many commits placed behind others, in any order: settled once, the window is in order
// of place, each commit with its own write, the commits at one place in the order read.
TEST(CommitWindow, ManyPlacedCommitsSettleInOrderWithTheirWrites) {
  cut::CommitWindow w;
  uint32_t seed = 7;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  constexpr uint32_t kCommits = 3000;
  for (uint32_t k = 0; k < kCommits; ++k) {
    const TxId x{1, 1, k};
    wal::DataEntry e;
    e.xid = x;
    e.counter = k;
    e.key = "k";
    w.OnWrite(e);
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = x;
    // One in three placed back among the earlier ones; the others at their record.
    const uint32_t at = k % 3 == 0 ? (next() >> 8) % (10 * k + 1) : 10 * k + 5;
    w.OnCommit(t, At(at));
    if (k % 500 == 499) w.Settle();
  }
  w.Settle();
  ASSERT_EQ(w.size(), kCommits);
  for (size_t i = 0; i < w.size(); ++i) {
    if (i > 0) {
      EXPECT_FALSE(w[i].ptr() < w[i - 1].ptr()) << i;
    }
    std::vector<uint64_t> counters;
    w.ForEachWrite(w[i], [&](const cut::Write& x) { counters.push_back(x.counter); });
    EXPECT_EQ(counters, std::vector<uint64_t>{w[i].xid.order}) << i;
  }
}

}  // namespace
