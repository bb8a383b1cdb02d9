#include <gtest/gtest.h>

#include "recovery/counter_tracker.h"

namespace recovery {
namespace {

TEST(CounterTracker, InOrderUpdatesAdvanceLwm) {
  CounterTracker t;
  EXPECT_EQ(t.Reserve(2), 0u);
  EXPECT_EQ(t.Reserve(1), 2u);
  EXPECT_TRUE(t.Update(0, 2).ok());
  EXPECT_TRUE(t.Update(2, 1).ok());
  EXPECT_EQ(t.lwm(), 3u);
  EXPECT_EQ(t.hwm(), 3u);
  EXPECT_TRUE(t.Gaps().empty());
}

TEST(CounterTracker, OutOfOrderRangesMergeOnBothSides) {
  CounterTracker t;
  t.Reserve(10);
  EXPECT_TRUE(t.Update(4, 2).ok());  // (4,6]
  EXPECT_TRUE(t.Update(8, 2).ok());  // (8,10]
  EXPECT_EQ(t.open_ranges(), 2u);
  EXPECT_TRUE(t.Update(6, 2).ok());  // (6,8] joins both neighbours
  EXPECT_EQ(t.open_ranges(), 1u);
  EXPECT_EQ(t.lwm(), 0u);
  EXPECT_EQ(t.Gaps(), (std::vector<Gap>{{1, 4}}));
  EXPECT_TRUE(t.Update(0, 4).ok());  // closes the prefix and swallows the range
  EXPECT_EQ(t.lwm(), 10u);
  EXPECT_EQ(t.open_ranges(), 0u);
}

TEST(CounterTracker, DuplicatesAreRefusedAndChangeNothing) {
  CounterTracker t;
  t.Reserve(6);
  ASSERT_TRUE(t.Update(0, 2).ok());
  ASSERT_TRUE(t.Update(3, 2).ok());
  EXPECT_EQ(t.Update(0, 1).code(), wal::StatusCode::kAlreadyExists);
  EXPECT_EQ(t.Update(4, 1).code(), wal::StatusCode::kAlreadyExists);
  EXPECT_EQ(t.Update(2, 2).code(), wal::StatusCode::kAlreadyExists);  // overlaps (3,5]
  EXPECT_EQ(t.lwm(), 2u);
  EXPECT_EQ(t.open_ranges(), 1u);
}

TEST(CounterTracker, FinalizeClosesEveryGapUpToHwm) {
  CounterTracker t;
  t.Reserve(10);
  ASSERT_TRUE(t.Update(2, 3).ok());  // (2,5]
  ASSERT_TRUE(t.Update(7, 1).ok());  // (7,8]
  auto gaps = t.Finalize();
  EXPECT_EQ(gaps, (std::vector<Gap>{{1, 2}, {6, 7}, {9, 10}}));
  EXPECT_EQ(t.lwm(), 10u);
  EXPECT_EQ(t.hwm(), 10u);
  EXPECT_TRUE(t.Finalize().empty());
}

TEST(CounterTracker, BoundOnOpenRangesIsAClearError) {
  CounterTracker t(3);
  t.Reserve(100);
  ASSERT_TRUE(t.Update(10, 1).ok());
  ASSERT_TRUE(t.Update(20, 1).ok());
  ASSERT_TRUE(t.Update(30, 1).ok());
  auto s = t.Update(40, 1);
  EXPECT_EQ(s.code(), wal::StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("too many gaps"), std::string::npos);
  EXPECT_TRUE(t.Update(11, 1).ok());  // merging needs no new range
}

}  // namespace
}  // namespace recovery

namespace {

TEST(CounterTracker, AnLwmFromAMetaPageAppliesEverythingBelowItAndJoinsTheRangesItReaches) {
  recovery::CounterTracker t;
  ASSERT_TRUE(t.Update(4, 2).ok());  // (4, 6]
  ASSERT_TRUE(t.Update(9, 1).ok());  // (9, 10]
  EXPECT_EQ(t.Gaps(), (std::vector<recovery::Gap>{{1, 4}, {7, 9}}));
  t.AdvanceLwm(5);  // 1..5 applied: reaches (4, 6]
  EXPECT_EQ(t.lwm(), 6u);
  EXPECT_EQ(t.Gaps(), (std::vector<recovery::Gap>{{7, 9}}));
  t.AdvanceLwm(3);  // below the LWM: nothing
  EXPECT_EQ(t.lwm(), 6u);
  t.AdvanceLwm(12);  // past the HWM: raises it
  EXPECT_EQ(t.lwm(), 12u);
  EXPECT_EQ(t.hwm(), 12u);
  EXPECT_TRUE(t.Gaps().empty());
  EXPECT_EQ(t.Update(11, 1).code(), wal::StatusCode::kAlreadyExists);
}

}  // namespace
