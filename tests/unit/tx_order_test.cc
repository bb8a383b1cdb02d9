// The order of a transaction's records on one node (libcut/tx_order.h).
#include <gtest/gtest.h>

#include "libcut/tx_order.h"

namespace {

const wal::TxId kTxA{1, 1, 1}, kTxB{1, 2, 7};

TEST(TxOrder, NothingIsCheckedBeforeStart) {
  cut::TxOrder o;
  EXPECT_EQ(o.OnWrite(kTxA), "");
  EXPECT_EQ(o.OnFinal(kTxA, "COMMITTED"), "");
  EXPECT_EQ(o.OnWrite(wal::TxId{}), "");
}

TEST(TxOrder, ARolePreparesWritesAndEnds) {
  cut::TxOrder o;
  o.Start();
  EXPECT_EQ(o.OnPrepared(kTxA), "");
  EXPECT_TRUE(o.IsOpen(kTxA));
  EXPECT_EQ(o.OnWrite(kTxA), "");
  EXPECT_EQ(o.OnFinal(kTxA, "COMMITTED"), "");
  EXPECT_FALSE(o.IsOpen(kTxA));
  EXPECT_EQ(o.open(), 0u);
}

TEST(TxOrder, TwoRolesOnOneNodeEachEndOnce) {
  cut::TxOrder o;
  o.Start();
  EXPECT_EQ(o.OnPrepared(kTxA), "");
  EXPECT_EQ(o.OnPrepared(kTxA), "");
  EXPECT_EQ(o.OnPrepared(kTxB), "");
  EXPECT_EQ(o.OnWrite(kTxA), "");
  EXPECT_EQ(o.OnFinal(kTxA, "COMMITTED"), "");
  EXPECT_TRUE(o.IsOpen(kTxA));  // the second role
  EXPECT_EQ(o.OnWrite(kTxA), "");
  EXPECT_EQ(o.OnFinal(kTxA, "COMMITTED"), "");
  EXPECT_FALSE(o.IsOpen(kTxA));
  EXPECT_TRUE(o.IsOpen(kTxB));
  EXPECT_NE(o.OnFinal(kTxA, "COMMITTED"), "");  // a third final: no role left
}

TEST(TxOrder, AWriteAfterTheLastFinalIsOutOfOrder) {
  cut::TxOrder o;
  o.Start();
  (void)o.OnPrepared(kTxA);
  EXPECT_EQ(o.OnFinal(kTxA, "COMMITTED"), "");
  const std::string why = o.OnWrite(kTxA);
  EXPECT_NE(why.find("1.1.1"), std::string::npos) << why;
  EXPECT_EQ(o.OnWrite(kTxA), "");  // the same record's other entries: reported once
}

TEST(TxOrder, AFinalWithNoPreparedIsOutOfOrder) {
  cut::TxOrder o;
  o.Start();
  EXPECT_NE(o.OnFinal(kTxB, "ROLLED_BACK").find("ROLLED_BACK record of transaction 1.2.7"), std::string::npos);
}

TEST(TxOrder, AnInitialLoadAfterTheSnapshotIsOutOfOrder) {
  cut::TxOrder o;
  o.Start();
  EXPECT_NE(o.OnWrite(wal::TxId{}), "");
}

TEST(TxOrder, ManyTransactionsInFlightGrowAndShrinkTheTable) {
  cut::TxOrder o;
  o.Start();
  for (uint64_t i = 1; i <= 5000; ++i) EXPECT_EQ(o.OnPrepared(wal::TxId{1, 1, i}), "");
  for (uint64_t i = 1; i <= 5000; i += 2) EXPECT_EQ(o.OnFinal(wal::TxId{1, 1, i}, "COMMITTED"), "");
  EXPECT_EQ(o.open(), 2500u);
  for (uint64_t i = 2; i <= 5000; i += 2) {
    EXPECT_TRUE(o.IsOpen(wal::TxId{1, 1, i})) << i;
    EXPECT_FALSE(o.IsOpen(wal::TxId{1, 1, i - 1})) << i;
  }
}

}  // namespace
