// A check of one Apache Ignite increment reads each node only to the increment's Finish
// record (cut::NodeIndexStream::Open's `stop`), and stands for the reading of the whole
// WALs only where cut::StopsEarly says so; otherwise the nodes are read to their end.
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_feed.h"
#include "libcut/cut_index.h"
#include "tests/support/ignite_script.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

// Named, not anonymous: the e2e tests are built as one unit.
namespace increment_stop_test {

using testing_support::RunCli;
using testing_support::TempDir;

const std::string kFixtures = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite";

// The nodes of `fixture`, each bound to increment `k` of `snapshot` (app::BoundToIncrement).
std::vector<app::WalInput> Bound(const std::string& fixture, const std::string& snapshot, uint32_t k) {
  auto inputs = app::ResolveWalInputs({kFixtures + "/" + fixture + "/nodes"});
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  std::vector<app::WalInput> nodes = inputs->nodes;
  EXPECT_EQ(app::BoundToIncrement(&nodes, snapshot, k), snapshot);
  return nodes;
}

// The streaming check of `nodes`, each read to the end or (`stop`) to its stop_after cut.
cut::StreamedCluster Check(const std::vector<app::WalInput>& nodes, bool stop) {
  std::vector<std::unique_ptr<cut::CutFeed>> feeds;
  for (const auto& in : nodes) {
    auto f = cut::WalFeed(in.node, in.wal_dir, nullptr, stop ? in.stop_after : std::nullopt);
    EXPECT_TRUE(f.ok()) << f.status().message();
    feeds.push_back(std::move(f).value());
  }
  const auto kept = app::KeptIncrementsOf(nodes);
  return cut::CheckClusterStreaming(std::move(feeds), nullptr, kept ? &*kept : nullptr);
}

const cut::CutReport* Find(const cut::StreamedCluster& s, const wal::Uuid& id) {
  for (const auto& c : s.report.cuts) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

// One scripted node's reading (tests/support/ignite_script.h) with a stop at cut 1 (the
// scripts' S1/F1): what it read, and the kinds of the problems of that cut.
struct Scripted {
  cut::NodeIndex index;
  std::vector<cut::Kind> kinds;
};
Scripted ReadScripted(const std::vector<std::string>& tokens, bool stop) {
  TempDir tmp;
  const std::string wal = testing_support::WriteIgniteScript(tmp.path() + "/n", tokens);
  auto s = cut::NodeIndexStream::Open("server_0", wal, nullptr, false,
                                      stop ? std::optional<wal::Uuid>(wal::Uuid{0xABC, 1}) : std::nullopt);
  EXPECT_TRUE(s.ok()) << s.status().message();
  Scripted out;
  cut::CutOnNode c;
  while ((*s)->Next(&c)) {
    if (c.id == wal::Uuid{0xABC, 1}) {
      for (const auto& p : c.problems) out.kinds.push_back(p.kind);
    }
  }
  out.index = (*s)->progress();
  return out;
}

TEST(IncrementStop, NothingInFlightStopsAtTheFinishRecord) {
  const std::vector<std::string> tokens{"P5", "D5", "C5", "S1", "F1", "P6", "D6", "C6", "P7", "D7", "C7"};
  const Scripted stopped = ReadScripted(tokens, true), whole = ReadScripted(tokens, false);
  EXPECT_TRUE(stopped.index.stopped);
  EXPECT_EQ(stopped.index.records + 6, whole.index.records);
  EXPECT_TRUE(stopped.kinds.empty());
}

// A transaction in flight at the Finish record is followed to its final record: one torn
// by the Start record and committed after the Finish record is seen torn, as the whole
// reading sees it, and the reading stops right after its commit.
TEST(IncrementStop, ATransactionInFlightAtTheFinishRecordIsFollowedToItsCommit) {
  const std::vector<std::string> tokens{"P5", "D5", "S1", "D5", "F1", "P6", "C5", "D6", "C6", "P7", "D7", "C7"};
  const Scripted stopped = ReadScripted(tokens, true), whole = ReadScripted(tokens, false);
  EXPECT_TRUE(stopped.index.stopped);
  EXPECT_EQ(stopped.index.records + 5, whole.index.records);  // to C5, not beyond
  EXPECT_EQ(stopped.kinds, std::vector<cut::Kind>{cut::Kind::kTornTransaction});
  EXPECT_EQ(whole.kinds, stopped.kinds);
}

// A transaction the Finish record lists After, committed only after it (a second role's
// COMMITTED record, as Ignite logs it): followed to that commit, not listed-not-committed.
TEST(IncrementStop, ATransactionListedAfterIsFollowedToItsCommit) {
  const std::vector<std::string> tokens{"P5", "S1", "F1a5", "D5", "C5", "P6", "D6", "C6"};
  const Scripted stopped = ReadScripted(tokens, true);
  EXPECT_TRUE(stopped.index.stopped);
  EXPECT_EQ(stopped.index.records + 3, ReadScripted(tokens, false).index.records);
  EXPECT_TRUE(stopped.kinds.empty());
}

TEST(IncrementStop, EachNodeIsReadToTheIncrementsFinishRecordAndNoFurther) {
  // snap's increment 1: Finish records in segment 1, the next cut's Start records in
  // segment 2, and the WALs go on to segment 5.
  const auto nodes = Bound("rebalance", "snap", 1);
  ASSERT_TRUE(nodes[0].stop_after.has_value());
  const auto stopped = Check(nodes, true);
  const auto whole = Check(nodes, false);
  const cut::CutReport* c = Find(stopped, *nodes[0].stop_after);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, cut::CutStatus::kConsistent) << c->reason;
  EXPECT_EQ(c->increment, std::optional<uint32_t>(1));
  EXPECT_TRUE(c->copies_compared);
  EXPECT_TRUE(cut::StopsEarly(stopped, *nodes[0].stop_after));
  ASSERT_EQ(stopped.nodes.size(), whole.nodes.size());
  for (size_t i = 0; i < stopped.nodes.size(); ++i) {
    const cut::NodeIndex& s = stopped.nodes[i];
    EXPECT_TRUE(s.stopped) << s.node;
    EXPECT_FALSE(whole.nodes[i].stopped) << s.node;
    EXPECT_LT(s.records, whole.nodes[i].records) << s.node;
    ASSERT_FALSE(c->nodes.empty());
    const auto row =
        std::find_if(c->nodes.begin(), c->nodes.end(), [&](const cut::CutNodeRow& r) { return r.node == s.node; });
    ASSERT_NE(row, c->nodes.end()) << s.node;
    // Past the Finish record only as far as the transactions in flight at it go (into the
    // next segment at most here), where the reading to the end goes on further. (The
    // ends are compared by segment: in a compacted one, offsets are the stream's.)
    EXPECT_LE(s.end.segment, row->finish.segment + 1) << s.node;
    EXPECT_LT(s.end.segment, whole.nodes[i].end.segment) << s.node;
  }
  // The reading to the end finds the same verdict for the cut.
  const cut::CutReport* w = Find(whole, *nodes[0].stop_after);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->status, c->status);
  EXPECT_EQ(w->increment, c->increment);
}

// check --cut / restore --cut bound the reading to an increment only by the cut's whole
// id: a prefix may also begin the id of a cut no metadata names (a failed increment's),
// which only the whole reading sees, and then the prefix matches two cuts.
TEST(IncrementStop, OnlyAWholeCutIdBindsTheReadingToAnIncrement) {
  const auto nodes = Bound("rebalance", "snap", 1);
  ASSERT_TRUE(nodes[0].stop_after.has_value());
  const std::string id = nodes[0].stop_after->ToString();
  std::string upper = id;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  auto inputs = app::ResolveWalInputs({kFixtures + "/rebalance/nodes"});
  ASSERT_TRUE(inputs.ok());
  const auto whole = app::IncrementOfCut(inputs->nodes, id);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(*whole, std::make_pair(std::string("snap"), uint32_t{1}));
  EXPECT_EQ(app::IncrementOfCut(inputs->nodes, upper), whole) << "case is ignored";
  EXPECT_FALSE(app::IncrementOfCut(inputs->nodes, id.substr(0, 8)).has_value());
  EXPECT_FALSE(app::IncrementOfCut(inputs->nodes, id.substr(0, 35)).has_value());
  // Either way the verdict is the same, from the bounded reading or the whole one.
  for (const std::string& given : {id, id.substr(0, 8)}) {
    auto r = RunCli({"check", "--cut", given, kFixtures + "/rebalance/nodes"});
    EXPECT_EQ(r.code, 0) << given << ": " << r.err;
    EXPECT_NE(r.out.find(id), std::string::npos) << r.out;
  }
}

// Ignite's late commit (testdata/ignite/late-commit): server_0 logged the COMMITTED
// record of a transaction Before increment 3 after that increment's Start and Finish
// records, its entries before the Start record. Ignite's restore applies entries by their
// place, and so do the copies' counters: read only to the Finish record, the cut is
// consistent, as it is read whole.
TEST(IncrementStop, ACommitLoggedPastTheFinishRecordIsNotNeeded) {
  const auto nodes = Bound("late-commit", "snap", 3);
  ASSERT_TRUE(nodes[0].stop_after.has_value());
  const auto stopped = Check(nodes, true);
  EXPECT_TRUE(cut::StopsEarly(stopped, *nodes[0].stop_after));
  const cut::CutReport* c = Find(stopped, *nodes[0].stop_after);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, cut::CutStatus::kConsistent) << c->reason;
  const auto whole = Check(nodes, false);
  const cut::CutReport* w = Find(whole, *nodes[0].stop_after);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->status, cut::CutStatus::kConsistent) << w->reason;
}

// A cut the stopped reading does not find consistent: the nodes are to be read whole.
// (rebalance's cut 607ce0aa: server_1 lacks its Finish record, server_2 both records;
// they are read to their end, server_0 stops past its Finish record.)
TEST(IncrementStop, ACutNotConsistentSendsTheCheckToTheWholeWal) {
  auto nodes = Bound("rebalance", "snap", 2);
  auto id = wal::Uuid::Parse("607ce0aa-8594-4141-b95a-62e931e16125");
  ASSERT_TRUE(id.has_value());
  for (auto& in : nodes) in.stop_after = *id;
  const auto stopped = Check(nodes, true);
  const cut::CutReport* c = Find(stopped, *id);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, cut::CutStatus::kInconsistent) << c->reason;
  EXPECT_FALSE(cut::StopsEarly(stopped, *id));
  for (const auto& n : stopped.nodes) EXPECT_EQ(n.stopped, n.node == "server_0") << n.node;
}

// A read error before the Finish record sends the check to the whole WAL too, so that
// every error is reported, those past the Finish record included; and so do counters not
// compared, and a transaction committed on fewer nodes than its TX_RECORD names.
TEST(IncrementStop, AReadErrorSendsTheCheckToTheWholeWal) {
  auto nodes = Bound("rebalance", "snap", 2);
  cut::StreamedCluster s;
  s.report.cuts.emplace_back();
  s.report.cuts.back().id = *nodes[0].stop_after;
  s.report.cuts.back().status = cut::CutStatus::kConsistent;
  s.report.cuts.back().copies_compared = true;
  s.report.cuts.back().participants_counted = true;
  s.nodes.emplace_back();
  EXPECT_TRUE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.nodes.back().read_errors.push_back("damage");
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.nodes.back().read_errors.clear();
  s.report.cuts.back().copies_compared = false;  // a node's counters not known
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.report.cuts.back().copies_compared = true;
  s.report.cuts.back().short_of_participants = 1;  // a transaction on fewer nodes than it names
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.report.cuts.back().short_of_participants = 0;
  s.report.cuts.back().participants_counted = false;  // more than 64 nodes: not counted
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
}

}  // namespace increment_stop_test
