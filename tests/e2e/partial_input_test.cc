// Partial input is never an "ok" about a cluster: where the cluster's nodes are known (a
// cluster.json above a node directory, a snapshot's metadata), a node not given fails the
// check and makes a restore partial, which only --node may ask for; where they are not,
// the verdict says how many nodes it read and that no more is known.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

const std::string kFull = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/full/nodes";

TEST(PartialInput, ANodeOfAClusterDirectoryOnItsOwnFailsTheCheckNamingTheOthers) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--nodes", "3", "--txs", "300", "--cuts", "1"}).code, 0);
  auto r = RunCli({"check", c + "/node-0"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("node-1: not-given"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("node-2: not-given"), std::string::npos) << r.err;
  // The node's own listing and summary are about the node: no failure for the others.
  EXPECT_EQ(RunCli({"cuts", "-q", c + "/node-0", "--summary", dir.path() + "/n0.sum"}).code, 0);
  // Summaries without the cluster file: the verdict says what it is about.
  auto s = RunCli({"check", "--summaries", dir.path() + "/n0.sum"});
  EXPECT_NE(s.out.find("(1 node(s) read; which nodes the cluster has is not known"), std::string::npos) << s.out;
  auto with = RunCli({"check", "--cluster", c + "/cluster.json", "--summaries", dir.path() + "/n0.sum"});
  EXPECT_EQ(with.code, 1) << with.out;
  EXPECT_NE(with.err.find("node-1: not-given"), std::string::npos) << with.err;
}

TEST(PartialInput, OneIgniteWalFolderIsCheckedAgainstItsSnapshotsBaseline) {
  auto r = RunCli({"check", kFull + "/server-0/work/db/wal/archive/server_0"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("server-1: not-given"), std::string::npos) << r.err;
}

TEST(PartialInput, ARestoreOfSomeIgniteNodesNeedsNodeToSaySo) {
  TempDir dir;
  auto r = RunCli({"restore", kFull + "/server-1", "--increment", "1", "-o", dir.path() + "/a"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("the restore would be partial"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/a"));
  auto ok = RunCli({"restore", kFull + "/server-1", "--increment", "1", "--node", "server_1", "-o", dir.path() + "/b"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

}  // namespace
