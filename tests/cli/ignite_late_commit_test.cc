// A real Apache Ignite WAL where a node logged a transaction's COMMITTED record after a
// cut's Start and Finish records and a segment switch, its entries all before the Start
// record (testdata/ignite/late-commit): every command places the commit at its last
// entry, Before increment 3 there as on the other nodes, as Ignite's restore applies it
// (libcut/commit_place.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

const std::string kNodes = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/late-commit/nodes";
const std::string kLate = "407977220.2.1796497217614";  // COMMITTED on server_0 at 3:29
const std::string kIncrement2 = "9d5afe90", kIncrement3 = "10357a8c";

// The line of `node` in text, or "".
std::string LineOf(const std::string& text, const std::string& node) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (line.find(node) != std::string::npos) return line;
    at = end + 1;
  }
  return "";
}

TEST(IgniteLateCommit, CheckFindsEveryIncrementConsistent) {
  const auto r = RunCli({"check", "--json", kNodes});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["cuts"].size(), 3u);
  for (const auto& c : doc["cuts"]) EXPECT_EQ(c["status"], "consistent") << c.dump();
}

TEST(IgniteLateCommit, TxsPlacesTheCommitAtItsLastEntry) {
  const auto r = RunCli({"txs", "--tx", kLate, kNodes});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string line = LineOf(r.out, "server_0");
  EXPECT_NE(line.find("at 2:26730 "), std::string::npos) << r.out;  // its last DATA_RECORD_V2
  EXPECT_NE(line.find(kIncrement3 + "=Before"), std::string::npos) << r.out;
  for (const char* node : {"server_1", "server_2"}) {
    EXPECT_NE(LineOf(r.out, node).find(kIncrement3 + "=Before"), std::string::npos) << r.out;
  }
}

TEST(IgniteLateCommit, DiffNamesTheTransactionOnEveryNode) {
  const auto r = RunCli({"diff", kNodes, kIncrement2, kIncrement3});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(LineOf(r.out, kLate).find("After in a, Before in b (server_0, server_1, server_2)"), std::string::npos)
      << r.out;
}

TEST(IgniteLateCommit, RestoreOfTheIncrementAppliesItOnEveryCopy) {
  // Applied on server_1 and server_2 and not on server_0, the copies of partitions 3 and
  // 14 would disagree and the restore be refused.
  TempDir dir;
  const auto r = RunCli({"restore", "-q", "--increment", "3", kNodes, "-o", dir.path() + "/out"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // Key "3" (partition 3) is on server_0 and server_1, "acct-11" (partition 14) on
  // server_0 and server_2: each copy has the transaction's write.
  for (const auto& [node, write] :
       std::vector<std::pair<std::string, std::string>>{{"server_0", "\"3\" = \"2755\" counter 26"},
                                                        {"server_1", "\"3\" = \"2755\" counter 26"},
                                                        {"server_0", "\"acct-11\" = \"1576\" counter 26"},
                                                        {"server_2", "\"acct-11\" = \"1576\" counter 26"}}) {
    const auto data = RunCli({"data", dir.path() + "/out/" + node});
    ASSERT_EQ(data.code, 0) << data.err;
    EXPECT_NE(data.out.find(write), std::string::npos) << node << ": " << data.out.substr(0, 2000);
  }
}

// cuts --svg on Ignite's WAL, whose cut records carry no time: each lane's Start and
// Finish take the time of the record before them, so the picture holds the commits around
// the cut (it held none), and the late commit is drawn Before, as check places it.
TEST(IgniteLateCommit, TimelineDrawsTheCommitsAroundTheCutWithTheirSides) {
  TempDir dir;
  const std::string svg = dir.path() + "/cut.svg";
  const auto r = RunCli({"cuts", "--svg", svg, "--cut", kIncrement3, kNodes});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string text = testing_support::ReadFile(svg);
  size_t markers = 0;
  for (size_t at = text.find("class=\"marker\""); at != std::string::npos; at = text.find("class=\"marker\"", at + 1)) {
    ++markers;
  }
  EXPECT_EQ(markers, 6u) << "a Start and a Finish marker on each of the three lanes";
  EXPECT_EQ(text.find("<!-- marks: 0 commits"), std::string::npos) << "no commit in view";
  EXPECT_NE(text.find("tx " + kLate + " at 3:29 (Before)"), std::string::npos);
  EXPECT_EQ(text.find("tx " + kLate + " at 3:29 (After)"), std::string::npos);
}

}  // namespace
