// One node's classification of a cut's window (libcut/window_classifier.h): the Finish
// record's sets against the commits, with walcut's rules and with Apache Ignite's.
#include <gtest/gtest.h>

#include <algorithm>

#include "libcut/window_classifier.h"

namespace {

using cut::Kind;
using wal::Pointer;
using wal::TxId;

const TxId kEarly{1, 1, 10}, kInFlight{1, 1, 11}, kLate{1, 1, 12};

// Commits of kEarly at 100, kInFlight at 300 and kLate at 500; the cut's Start record at
// 200 and its Finish record at 400.
cut::CommitWindow Window() {
  cut::CommitWindow w;
  auto commit = [&](const TxId& x, uint32_t at) {
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = x;
    w.OnCommit(t, Pointer{0, at});
  };
  commit(kEarly, 100);
  commit(kInFlight, 300);
  commit(kLate, 500);
  return w;
}

cut::CutOnNode Cut(std::vector<TxId> before, std::vector<TxId> after) {
  cut::CutOnNode c;
  c.has_start = c.has_finish = true;
  c.start = Pointer{0, 200};
  c.finish = Pointer{0, 400};
  c.before = std::move(before);
  c.after = std::move(after);
  return c;
}

std::vector<Kind> Classify(cut::CutOnNode c, bool ignite) {
  cut::WindowClassifier classifier;
  classifier.set_finish_sets_watch_commits(ignite);
  const cut::CommitWindow w = Window();
  classifier.Classify(c, w, Pointer{0, 0}, Pointer{0, 1000});
  std::vector<Kind> kinds;
  for (const auto& p : c.problems) kinds.push_back(p.kind);
  return kinds;
}

cut::Side SideOf(const cut::CutOnNode& c, const TxId& x) {
  auto it = std::find_if(c.txs.begin(), c.txs.end(), [&](const cut::TxSide& t) { return t.xid == x; });
  EXPECT_NE(it, c.txs.end());
  return it->side;
}

TEST(WindowClassifier, ListedInFlightIsBeforeUnlistedIsAfter) {
  cut::CutOnNode c = Cut({kInFlight}, {});
  cut::WindowClassifier classifier;
  const cut::CommitWindow w = Window();
  classifier.Classify(c, w, Pointer{0, 0}, Pointer{0, 1000});
  EXPECT_TRUE(c.problems.empty());
  EXPECT_EQ(SideOf(c, kEarly), cut::Side::kBefore);
  EXPECT_EQ(SideOf(c, kInFlight), cut::Side::kBefore);
  EXPECT_EQ(SideOf(c, kLate), cut::Side::kAfter);
}

// walcut's writer lists only what was in flight at the Start record.
TEST(WindowClassifier, BeforeSetListingACommitBeforeStartIsOutsideRange) {
  EXPECT_EQ(Classify(Cut({kEarly, kInFlight}, {}), false), std::vector<Kind>{Kind::kBeforeOutsideRange});
}

// Ignite includes what it found committing when it grabbed the active transactions,
// just before logging the Start record: Before either way, so no violation.
TEST(WindowClassifier, IgniteMayListACommitJustBeforeStart) {
  EXPECT_EQ(Classify(Cut({kEarly, kInFlight}, {}), true), std::vector<Kind>{});
}

// Neither rule forgives a Before transaction committed after the Finish record.
TEST(WindowClassifier, BeforeSetListingACommitAfterFinishIsAViolationEverywhere) {
  for (bool ignite : {false, true}) {
    const std::vector<Kind> kinds = Classify(Cut({kInFlight, kLate}, {}), ignite);
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), Kind::kListedAfterFinish), kinds.end()) << ignite;
  }
}

// Ignite lists an excluded transaction once its finish on the node completes; a second
// role of it may commit after the Finish record.
TEST(WindowClassifier, AfterSetListingACommitAfterFinishIsIgnitesHabitOnly) {
  EXPECT_EQ(Classify(Cut({}, {kLate}), false), std::vector<Kind>{Kind::kListedAfterFinish});
  EXPECT_EQ(Classify(Cut({}, {kLate}), true), std::vector<Kind>{});
}

// A Before transaction committed after the Start record carries its participants to the
// cluster check's participant rule: node orders in walcut's format; Apache Ignite's
// compact ids, which its WAL does not map to nodes, are not taken for node orders.
TEST(WindowClassifier, ParticipantsAreNodeOrdersInWalcutsFormatOnly) {
  for (const auto format : {wal::SegmentFormat::kWalcut, wal::SegmentFormat::kIgnite}) {
    const bool ignite = format == wal::SegmentFormat::kIgnite;
    // One participant: primary 2, backup 3.
    const std::string parts =
        ignite ? std::string("\x02\x00\x01\x00\x00\x00\x03\x00", 8) : std::string("\x02\x00\x01\x00\x03\x00", 6);
    cut::CommitWindow w;
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = kInFlight;
    t.format = format;
    t.participant_count = 1;
    t.participants = parts;
    w.OnCommit(t, Pointer{0, 300});
    cut::CutOnNode c = Cut({kInFlight}, {});
    cut::WindowClassifier classifier;
    classifier.set_finish_sets_watch_commits(ignite);
    classifier.Classify(c, w, Pointer{0, 0}, Pointer{0, 1000});
    if (ignite) {
      EXPECT_TRUE(c.participants.empty());
      continue;
    }
    ASSERT_EQ(c.participants.size(), 1u);
    const auto nodes = cut::NodesOf(c, c.participants[0]);
    EXPECT_EQ(std::vector<uint16_t>(nodes.begin(), nodes.end()), (std::vector<uint16_t>{2, 3}));
  }
}

// Which Before commits carry their participants: those newly Before at the cut. After a
// base record, every Before commit since it; after a cut this classifier placed, those
// since its Start that it did not have Before; with neither known, those after Start.
TEST(WindowClassifier, ParticipantsOfEveryTransactionNewlyBefore) {
  const TxId kOld{1, 1, 9}, kCarried{1, 1, 13};
  cut::CommitWindow w;
  const std::string parts("\x01\x00\x01\x00\x02\x00", 6);  // primary 1, backup 2 (the view reads it)
  auto commit = [&](const TxId& x, uint32_t at) {
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = x;
    t.participant_count = 1;
    t.participants = parts;
    w.OnCommit(t, Pointer{0, at});
  };
  commit(kOld, 20);     // before the base record (50)
  commit(kEarly, 100);  // the first cut: Start 200, Finish 400
  commit(kInFlight, 300);
  commit(kCarried, 350);  // Before the first cut too
  commit(kLate, 500);     // the second cut: Start 600, Finish 700
  auto with_participants = [](const cut::CutOnNode& c) {
    std::vector<TxId> out;
    for (const auto& p : c.participants) out.push_back(c.txs[p.tx].xid);
    return out;
  };
  const Pointer base{0, 50};
  {
    cut::WindowClassifier classifier;
    cut::CutOnNode first = Cut({kInFlight, kCarried}, {});
    classifier.Classify(first, w, Pointer{0, 0}, Pointer{0, 600}, &base);
    EXPECT_EQ(with_participants(first), (std::vector<TxId>{kEarly, kInFlight, kCarried}));
    cut::CutOnNode second = Cut({}, {});
    second.start = Pointer{0, 600};
    second.finish = Pointer{0, 700};
    classifier.Classify(second, w, Pointer{0, 200}, Pointer{0, 1000}, &base);
    EXPECT_EQ(with_participants(second), (std::vector<TxId>{kLate}));  // kInFlight, kCarried were Before the first
  }
  {
    cut::WindowClassifier classifier;  // no base, no cut before: after Start only
    cut::CutOnNode first = Cut({kInFlight, kCarried}, {});
    classifier.Classify(first, w, Pointer{0, 0}, Pointer{0, 600});
    EXPECT_EQ(with_participants(first), (std::vector<TxId>{kInFlight, kCarried}));
  }
}

}  // namespace
