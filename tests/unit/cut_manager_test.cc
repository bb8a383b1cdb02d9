// CutManager driven step by step: each test holds one event around the cut's start and
// asserts the records written and the sets they list.
#include <gtest/gtest.h>

#include "libcut/cut_manager.h"

namespace cut {
namespace {

struct Recorder : CutListener {
  std::vector<wal::CutStartRecord> starts;
  std::vector<wal::CutFinishRecord> finishes;
  std::vector<std::string> failures;
  void WriteStart(const wal::CutStartRecord& r) override { starts.push_back(r); }
  void WriteFinish(const wal::CutFinishRecord& r) override { finishes.push_back(r); }
  void CutFailed(const wal::Uuid&, const std::string& reason) override { failures.push_back(reason); }
};

const wal::Uuid kCut{0xC0, 0x01};
const wal::Uuid kOtherCut{0xC0, 0x02};
const wal::TxId kT1{1, 4, 1}, kT2{1, 4, 2}, kT3{1, 4, 3};

TxFinish Committed(wal::TxId xid, wal::Uuid stamp = {}, uint32_t topver = 1) {
  return TxFinish{xid, TxOutcome::kCommitted, stamp, topver, false};
}

TEST(CutManager, NothingInFlightFinishesRightAfterStart) {
  Recorder r;
  CutManager m(&r, true, 1);
  EXPECT_TRUE(m.OnCutId(kCut, 1));
  EXPECT_TRUE(r.starts.empty());  // the Start record comes from the background step
  EXPECT_EQ(m.WrapId(), kCut);
  m.WriteStartRecord(10);
  ASSERT_EQ(r.starts.size(), 1u);
  EXPECT_EQ(r.starts[0].cut_id, kCut);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_TRUE(r.finishes[0].before.empty());
  EXPECT_TRUE(r.finishes[0].after.empty());
}

TEST(CutManager, PreparedAtStartIsWatchedAndClassifiedByStamp) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);
  m.OnTxPrepared(kT2);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  EXPECT_TRUE(r.finishes.empty());           // waits for the watched transactions
  m.OnTxFinished(Committed(kT1, kCut), 11);  // the first committer had started the cut
  EXPECT_TRUE(r.finishes.empty());
  m.OnTxFinished(Committed(kT2), 12);  // the first committer had not
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_EQ(r.finishes[0].after, std::vector<wal::TxId>{kT1});
  EXPECT_EQ(r.finishes[0].before, std::vector<wal::TxId>{kT2});
  EXPECT_EQ(m.stats().after_by_stamp, 1u);
  EXPECT_EQ(m.stats().before, 1u);
}

TEST(CutManager, CommittedDuringTheStartStepIsWatched) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnCutId(kCut, 1);
  // Prepared and committed between the atomic start and the Start record: physically
  // before Start, so it must be listed; its stamp says After.
  m.OnTxPrepared(kT1);
  m.OnTxFinished(Committed(kT1, kCut), 5);
  m.OnTxPrepared(kT2);
  m.OnTxFinished(Committed(kT2), 6);
  m.WriteStartRecord(10);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_EQ(r.finishes[0].after, std::vector<wal::TxId>{kT1});
  // Committed before Start and not in `after`: Before without being listed.
  EXPECT_TRUE(r.finishes[0].before.empty());
  EXPECT_EQ(m.stats().before, 1u);
  EXPECT_EQ(m.stats().committed_in_start_step, 2u);
}

TEST(CutManager, PreparedAfterStartIsNotListed) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  ASSERT_EQ(r.finishes.size(), 1u);
  m.OnTxPrepared(kT1);
  m.OnTxFinished(Committed(kT1, kCut), 11);
  EXPECT_EQ(r.finishes.size(), 1u);
  EXPECT_TRUE(r.finishes[0].after.empty());
}

TEST(CutManager, HigherTopologyVersionIsAfter) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  m.OnTxFinished(Committed(kT1, {}, 2), 11);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_EQ(r.finishes[0].after, std::vector<wal::TxId>{kT1});
  EXPECT_EQ(m.stats().after_by_topology, 1u);
}

TEST(CutManager, RolledBackWatchedTransactionIsIgnored) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  m.OnTxFinished(TxFinish{kT1, TxOutcome::kRolledBack, {}, 1, false}, 11);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_TRUE(r.finishes[0].before.empty());
  EXPECT_TRUE(r.finishes[0].after.empty());
}

TEST(CutManager, UnknownStateFailsTheCut) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  m.OnTxFinished(TxFinish{kT1, TxOutcome::kUnknown, {}, 1, false}, 11);
  EXPECT_TRUE(r.finishes.empty());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(m.failed());
}

TEST(CutManager, RecoveryFinishFailsTheCutUnlessTheBugIgnoresIt) {
  for (InjectedBug bug : {InjectedBug::kNone, InjectedBug::kIgnoreRecovery}) {
    Recorder r;
    CutManager m(&r, true, 1, bug);
    m.OnTxPrepared(kT1);
    m.OnCutId(kCut, 1);
    m.WriteStartRecord(10);
    m.OnTxFinished(TxFinish{kT1, TxOutcome::kCommitted, {}, 1, true}, 11);
    EXPECT_EQ(r.finishes.size(), bug == InjectedBug::kNone ? 0u : 1u);
    EXPECT_EQ(r.failures.size(), bug == InjectedBug::kNone ? 1u : 0u);
  }
}

TEST(CutManager, TwoRolesOfOneTransactionAreClassifiedOnceWhenBothFinish) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);  // as a primary
  m.OnTxPrepared(kT1);  // as the backup of another primary
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(10);
  m.OnTxFinished(Committed(kT1, kCut), 11);
  EXPECT_TRUE(r.finishes.empty());
  m.OnTxFinished(Committed(kT1, kCut), 12);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_EQ(r.finishes[0].after, std::vector<wal::TxId>{kT1});
}

TEST(CutManager, SkipRules) {
  Recorder r;
  CutManager joined_late(&r, true, 3);
  EXPECT_FALSE(joined_late.OnCutId(kCut, 2));  // joined after the cut's topology version
  EXPECT_TRUE(joined_late.WrapId().IsNil());
  CutManager m(&r, true, 1);
  EXPECT_TRUE(m.OnCutId(kCut, 1));
  EXPECT_FALSE(m.OnCutId(kCut, 1));  // already running
  m.WriteStartRecord(1);
  m.OnCutDone(kCut);
  EXPECT_TRUE(m.WrapId().IsNil());
  EXPECT_TRUE(m.StampId().IsNil());
  EXPECT_FALSE(m.OnCutId(kCut, 1));  // finished here: never twice
  EXPECT_TRUE(m.OnCutId(kOtherCut, 1));
}

// The next cut's id can arrive on a wrapped message before the discovery event that
// ends the previous cut: the node must start the new cut then, or a transaction stamped
// with the new id would commit here unwatched, before Start, and count as Before.
TEST(CutManager, NewerCutOnAWrappedMessageEndsTheFinishedPreviousOne) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(1);
  ASSERT_EQ(r.finishes.size(), 1u);
  EXPECT_TRUE(m.OnCutId(kOtherCut, 1));  // CutDone(kCut) has not arrived yet
  EXPECT_EQ(m.WrapId(), kOtherCut);
  m.OnTxPrepared(kT1);
  m.OnTxFinished(Committed(kT1, kOtherCut), 2);  // during the new cut's start step
  m.WriteStartRecord(3);
  ASSERT_EQ(r.finishes.size(), 2u);
  EXPECT_EQ(r.finishes[1].after, std::vector<wal::TxId>{kT1});
  m.OnCutDone(kCut);  // the late discovery event changes nothing
  EXPECT_EQ(m.WrapId(), kOtherCut);
  EXPECT_TRUE(r.failures.empty());
}

TEST(CutManager, ClientWrapsAndStampsButWritesNothing) {
  Recorder r;
  CutManager client(&r, false, 1);
  EXPECT_TRUE(client.OnCutId(kCut, 1));
  EXPECT_EQ(client.WrapId(), kCut);
  EXPECT_EQ(client.StampId(), kCut);
  client.WriteStartRecord(1);
  EXPECT_TRUE(r.starts.empty());
  EXPECT_TRUE(r.finishes.empty());
}

TEST(CutManager, InjectedBugsChangeOnlyWhatTheyName) {
  Recorder r;
  CutManager no_stamp(&r, true, 1, InjectedBug::kNoTxCutId);
  no_stamp.OnCutId(kCut, 1);
  EXPECT_TRUE(no_stamp.StampId().IsNil());
  EXPECT_EQ(no_stamp.WrapId(), kCut);
  CutManager no_wrap(&r, true, 1, InjectedBug::kNoWrap);
  no_wrap.OnCutId(kCut, 1);
  EXPECT_TRUE(no_wrap.WrapId().IsNil());
  EXPECT_EQ(no_wrap.StampId(), kCut);
  Recorder e;
  CutManager early(&e, true, 1, InjectedBug::kEarlyFinish);
  early.OnTxPrepared(kT3);
  early.OnCutId(kCut, 1);
  early.WriteStartRecord(1);
  EXPECT_EQ(e.finishes.size(), 1u);  // did not wait for kT3
}

TEST(CutManager, BaselineChangeFailsTheRunningCut) {
  Recorder r;
  CutManager m(&r, true, 1);
  m.OnTxPrepared(kT1);
  m.OnCutId(kCut, 1);
  m.WriteStartRecord(1);
  m.Fail("baseline node node-2 left the cluster");
  m.OnTxFinished(Committed(kT1), 2);
  EXPECT_TRUE(r.finishes.empty());
  ASSERT_EQ(r.failures.size(), 1u);
}

}  // namespace
}  // namespace cut
