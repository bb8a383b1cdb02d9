// walcut info: one screen of what can be restored and from what, for a walcut cluster, for
// Apache Ignite's work directories and for its snapshot directories; each line follows the
// files (a node's snapshot gone, an increment's WAL gone, a node not given, a cut broken).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

const std::string kInfoFull = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/full";

std::string Sim(const TempDir& dir, const std::string& bug = "") {
  const std::string c = dir.path() + "/c";
  std::vector<std::string> args = {"simulate", "-o", c, "-q", "--txs", "3000", "--cuts", "3"};
  if (!bug.empty()) {
    args.push_back("--inject-bug");
    args.push_back(bug);
  }
  EXPECT_EQ(RunCli(args).code, 0);
  return c;
}

TEST(Info, AWalcutClusterShowsItsBaseIncrementsAndPrune) {
  TempDir dir;
  const std::string c = Sim(dir);
  auto r = RunCli({"info", c});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("walcut cluster, 3 node(s) (node-0, node-1, node-2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("base snapshot \"base\": on 3 of 3 node(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  increment 3: consistent"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("walcut: restorable from the base snapshot 'base'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("prune, keeping every restorable cut: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Ignite's restore"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(RunCli({"info", "--json", c}).out);
  EXPECT_EQ(j["format"], "walcut");
  ASSERT_EQ(j["snapshots"].size(), 1u);
  const auto& s = j["snapshots"][0];
  EXPECT_EQ(s["name"], "base");
  EXPECT_EQ(s["nodes"].size(), 3u);
  EXPECT_GT(s["bytes"].get<uint64_t>(), 0u);
  ASSERT_EQ(s["cuts"].size(), 3u);
  for (const auto& cut : s["cuts"]) {
    EXPECT_EQ(cut["status"], "consistent");
    EXPECT_TRUE(cut["restorable"].get<bool>()) << cut.dump();
    EXPECT_GT(cut["wal_bytes"].get<uint64_t>(), 0u);
  }
  EXPECT_FALSE(j["prune"].is_null());
}

// The lines follow the files: a node's base snapshot removed, and a broken algorithm.
TEST(Info, WhatIsMissingOrBrokenIsSaid) {
  TempDir dir;
  const std::string c = Sim(dir);
  fs::remove_all(c + "/node-1/snapshots/base");
  auto r = RunCli({"info", c});
  EXPECT_NE(r.out.find("on 2 of 3 node(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing on node-1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("walcut: not restorable"), std::string::npos) << r.out;
  TempDir bad_dir;
  const std::string bad = Sim(bad_dir, "no-wrap");
  auto b = RunCli({"info", "--json", bad});
  auto j = nlohmann::json::parse(b.out);
  size_t inconsistent = 0;
  for (const auto& cut : j["snapshots"][0]["cuts"]) {
    if (cut["status"] == "inconsistent") {
      ++inconsistent;
      EXPECT_FALSE(cut["reason"].get<std::string>().empty());
      EXPECT_TRUE(cut["restorable"].is_null());
    }
  }
  EXPECT_GT(inconsistent, 0u) << b.out;
}

TEST(Info, IgniteWorkDirectoriesShowTheFullSnapshotAndWhatIgnitesRestoreNeeds) {
  auto r = RunCli({"info", kInfoFull + "/nodes"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Apache Ignite, 3 node(s) (server_0, server_1, server_2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("full snapshot \"snap\", taken 2026-12-06T"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("page file(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  increment 3: consistent, started 2026-12-06T"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Ignite's restore: has what it needs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no increment needs (Ignite removes its archive itself)"), std::string::npos) << r.out;
  // The same from the snapshot directories alone, with no prune to report.
  std::vector<std::string> args = {"info", "--json"};
  for (const auto& n : {"server-0", "server-1", "server-2"})
    args.push_back(kInfoFull + "/nodes/" + n + "/work/snapshots/snap");
  auto j = nlohmann::json::parse(RunCli(args).out);
  EXPECT_EQ(j["format"], "ignite");
  EXPECT_TRUE(j["prune"].is_null());
  ASSERT_EQ(j["snapshots"][0]["cuts"].size(), 3u);
  EXPECT_TRUE(j["snapshots"][0]["cuts"][2]["ignite_restore"]["ok"].get<bool>());
}

TEST(Info, AnIncrementsWalGoneOrANodeNotGivenIsNamed) {
  TempDir dir;
  const std::string copy = dir.path() + "/full";
  fs::copy(kInfoFull, copy, fs::copy_options::recursive);
  fs::remove_all(copy + "/nodes/server-1/work/snapshots/snap/increments/0000000000000002/db/wal");
  auto r = RunCli({"info", copy + "/nodes"});
  EXPECT_NE(r.out.find("Ignite's restore: lacks increment 2's WAL on server_1"), std::string::npos) << r.out;
  auto two = RunCli({"info", kInfoFull + "/nodes/server-0/work", kInfoFull + "/nodes/server-1/work"});
  EXPECT_EQ(two.code, 1);
  EXPECT_NE(two.out.find("missing on server_2"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("walcut: not restorable: server-2 was not given"), std::string::npos) << two.out;
}

}  // namespace
