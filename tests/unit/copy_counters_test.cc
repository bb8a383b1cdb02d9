// The update counters a node's restore of an Apache Ignite increment applies (Ignite's rule:
// everything up to the previous Finish record, then what the Finish record's sets let
// through), and the range sets they are kept in.
#include <gtest/gtest.h>

#include "libcut/copy_counters.h"

namespace cut {
namespace {

wal::TxId CounterTx(uint64_t order) {
  wal::TxId x;
  x.topology_version = 1;
  x.node_order = 1;
  x.order = order;
  return x;
}

TEST(AddCounter, MergesNeighboursAndKeepsOrder) {
  CounterRanges r;
  for (uint64_t c : {1u, 2u, 3u, 7u, 5u, 6u, 10u, 4u, 9u, 9u}) AddCounter(r, c);
  EXPECT_EQ(r, (CounterRanges{{1, 7}, {9, 10}}));
  AddCounter(r, 8);
  EXPECT_EQ(r, (CounterRanges{{1, 10}}));
  AddCounter(r, 0);
  EXPECT_EQ(r, (CounterRanges{{0, 10}}));
  // At the top of the range, nothing wraps.
  CounterRanges top;
  for (uint64_t c : {UINT64_MAX, UINT64_MAX - 2, UINT64_MAX, uint64_t{5}, UINT64_MAX - 1, uint64_t{0}})
    AddCounter(top, c);
  EXPECT_EQ(top, (CounterRanges{{0, 0}, {5, 5}, {UINT64_MAX - 2, UINT64_MAX}}));
}

TEST(CounterFollower, AppliesWhatIgnitesRestoreApplies) {
  CounterFollower f;
  f.OnUpdate(7, 0, 1, CounterTx(1));  // before the full snapshot's record: not compared
  f.OnSnapshot();
  f.OnUpdate(7, 0, 2, CounterTx(2));  // before the Start, not excluded: applied
  f.OnUpdate(7, 0, 3, CounterTx(3));  // before the Start, excluded: not applied
  f.OnStart();
  f.OnUpdate(7, 0, 4, CounterTx(4));  // after the Start, included: applied
  f.OnUpdate(7, 0, 5, CounterTx(5));  // after the Start, not included: not applied
  f.OnUpdate(7, 0, 6, wal::TxId{});   // of no transaction: never compared
  AppliedCounters first = f.OnFinish({CounterTx(4)}, {CounterTx(3)});
  ASSERT_TRUE(first.known);
  ASSERT_EQ(first.copies.size(), 1u);
  EXPECT_EQ(first.copies[0].counters, (CounterRanges{{2, 2}, {4, 4}}));
  ASSERT_EQ(first.window.size(), 2u);
  EXPECT_EQ(first.window[1].xid, CounterTx(4));
  // The next increment applies everything up to that Finish record.
  f.OnUpdate(7, 0, 7, CounterTx(7));
  f.OnStart();
  AppliedCounters second = f.OnFinish({}, {});
  ASSERT_TRUE(second.known);
  EXPECT_EQ(second.copies[0].counters, (CounterRanges{{2, 5}, {7, 7}}));
}

TEST(CounterFollower, NothingIsKnownWithoutTheSnapshotsRecordOrAfterALoss) {
  CounterFollower f;
  f.OnUpdate(7, 0, 1, CounterTx(1));
  f.OnStart();
  EXPECT_FALSE(f.OnFinish({}, {}).known);  // the reading began after the full snapshot's record
  f.OnSnapshot();
  f.OnUpdate(7, 0, 2, CounterTx(2));
  f.Lose();  // a read error
  f.OnStart();
  EXPECT_FALSE(f.OnFinish({}, {}).known);
  f.OnSnapshot();
  f.OnStart();
  f.OnStart();  // two Starts without a Finish: not Ignite's shape
  EXPECT_FALSE(f.OnFinish({}, {}).known);
}

}  // namespace
}  // namespace cut
