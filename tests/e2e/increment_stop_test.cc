// A check of one Apache Ignite increment reads each node only to the increment's Finish
// record (cut::NodeIndexStream::Open's `stop`), and stands for the reading of the whole
// WALs only where cut::StopsEarly says so; otherwise the nodes are read to their end.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/inputs.h"
#include "libcut/cluster_check.h"
#include "libcut/cut_feed.h"
#include "libcut/cut_index.h"
#include "tests/support/run_cli.h"

// Named, not anonymous: the e2e tests are built as one unit.
namespace increment_stop_test {

using testing_support::RunCli;

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
    // In the Finish record's segment (no commit is listed After at it), where the reading
    // to the end goes on to a later one.
    EXPECT_EQ(s.end.segment, row->finish.segment) << s.node;
    EXPECT_GT(whole.nodes[i].end.segment, row->finish.segment) << s.node;
  }
  // The reading to the end finds the same verdict for the cut.
  const cut::CutReport* w = Find(whole, *nodes[0].stop_after);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->status, c->status);
  EXPECT_EQ(w->increment, c->increment);
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
// every error is reported, those past the Finish record included.
TEST(IncrementStop, AReadErrorSendsTheCheckToTheWholeWal) {
  auto nodes = Bound("rebalance", "snap", 2);
  cut::StreamedCluster s;
  s.report.cuts.emplace_back();
  s.report.cuts.back().id = *nodes[0].stop_after;
  s.report.cuts.back().status = cut::CutStatus::kConsistent;
  s.report.cuts.back().copies_compared = true;
  s.nodes.emplace_back();
  EXPECT_TRUE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.nodes.back().read_errors.push_back("damage");
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
  s.nodes.back().read_errors.clear();
  s.report.cuts.back().copies_compared = false;  // a node's counters not known
  EXPECT_FALSE(cut::StopsEarly(s, *nodes[0].stop_after));
}

}  // namespace increment_stop_test
