// app::CheckSummaries and app::ReadClusterFile: the summaries of a simulated cluster give the
// verdict its indexes give, and each refusal has its own status (a node given twice, a file
// missing, a file damaged part way).
#include "app/summary_check.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/inputs.h"
#include "libcut/summary_file.h"
#include "sim/simulate.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::TempDir;

struct SummarizedCluster {
  std::string dir;
  std::vector<cut::NodeIndex> indexes;
  std::vector<std::string> files;  // a binary summary per node
};

SummarizedCluster Summarize(const TempDir& tmp) {
  SummarizedCluster c;
  c.dir = tmp.path() + "/c";
  sim::SimConfig cfg;
  cfg.out_dir = c.dir;
  cfg.txs = 1500;
  cfg.accounts = 100;
  cfg.cuts = 2;
  cfg.partitions = 8;
  EXPECT_TRUE(sim::Simulate(cfg).ok());
  auto inputs = app::ResolveWalInputs({c.dir});
  EXPECT_TRUE(inputs.ok());
  if (!inputs.ok()) return c;
  for (const auto& in : inputs->nodes) {
    auto index = cut::BuildNodeIndex(in.node, in.wal_dir);
    EXPECT_TRUE(index.ok()) << index.status().message();
    if (!index.ok()) continue;
    c.files.push_back(tmp.path() + "/" + in.node + ".sum");
    std::ofstream(c.files.back(), std::ios::binary) << cut::EncodeSummary(*index);
    c.indexes.push_back(std::move(index).value());
  }
  return c;
}

TEST(CheckSummaries, GiveTheVerdictOfTheIndexesTheyHold) {
  TempDir tmp;
  const SummarizedCluster c = Summarize(tmp);
  ASSERT_EQ(c.files.size(), 3u);
  auto cluster = app::ReadClusterFile(c.dir + "/cluster.json");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto report = app::CheckSummaries(c.files, &*cluster);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const cut::ClusterReport direct = cut::CheckCluster(c.indexes, &*cluster);
  ASSERT_EQ(report->cuts.size(), direct.cuts.size());
  ASSERT_EQ(report->cuts.size(), 2u);
  for (size_t k = 0; k < direct.cuts.size(); ++k) {
    EXPECT_EQ(report->cuts[k].id, direct.cuts[k].id);
    EXPECT_EQ(report->cuts[k].status, direct.cuts[k].status);
    EXPECT_EQ(report->cuts[k].status, cut::CutStatus::kConsistent);
  }
  EXPECT_EQ(report->nodes, 3u);
}

TEST(CheckSummaries, ANodeGivenTwiceIsTheUsersToMend) {
  TempDir tmp;
  const SummarizedCluster c = Summarize(tmp);
  ASSERT_FALSE(c.files.empty());
  auto report = app::CheckSummaries({c.files[0], c.files[0]}, nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), wal::StatusCode::kAlreadyExists);
  EXPECT_NE(report.status().message().find("two summaries of node"), std::string::npos) << report.status().message();
}

TEST(CheckSummaries, AMissingOrDamagedFileIsRefusedByName) {
  TempDir tmp;
  const SummarizedCluster c = Summarize(tmp);
  ASSERT_EQ(c.files.size(), 3u);
  auto missing = app::CheckSummaries({c.files[0], tmp.path() + "/none.sum"}, nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), wal::StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("none.sum"), std::string::npos) << missing.status().message();

  // The last node's summary with a byte of its last frame changed: found as it is read.
  std::string bytes;
  {
    std::ifstream in(c.files[2], std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 64u);
  bytes[bytes.size() - 40] = static_cast<char>(bytes[bytes.size() - 40] ^ 0x5a);
  std::ofstream(c.files[2], std::ios::binary | std::ios::trunc) << bytes;
  auto damaged = app::CheckSummaries(c.files, nullptr);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().code(), wal::StatusCode::kAlreadyExists);
  EXPECT_NE(damaged.status().message().find(c.files[2]), std::string::npos) << damaged.status().message();
}

TEST(ReadClusterFile, AMissingFileIsNotFoundOrUnreadable) {
  TempDir tmp;
  auto r = app::ReadClusterFile(tmp.path() + "/cluster.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cluster.json"), std::string::npos) << r.status().message();
}

}  // namespace
