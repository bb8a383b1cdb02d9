// What a person reads on Apache Ignite input: times in ISO 8601 and "others" for Ignite's
// every-other-node sentinel in dump's text (the JSON keeps Ignite's values), no warning about
// the older bytes every reused work file holds, txs naming a near node it did not read in
// words and leaving out participants the WAL does not name, and a folder one level off told
// which folder to give instead.
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

const std::string kCleanNodes = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes";
const std::string kWal = kCleanNodes + "/server-0/work/db/wal";

TEST(OperatorView, IgniteDumpTextHasIsoTimesAndNoRawSentinel) {
  auto r = RunCli({"dump", "--type", "TX_RECORD,DATA_RECORD_V2", kWal + "/archive/server_0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" ts 2026-12-03T"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("[others]"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("32767"), std::string::npos);
  auto json = RunCli({"dump", "--json", "--type", "TX_RECORD", kWal + "/archive/server_0"});
  EXPECT_NE(json.out.find("[32767]"), std::string::npos);
  EXPECT_NE(json.out.find("\"timestamp\":1796280"), std::string::npos);
}

// Wall-clock times in UTC, or with --local in the local time zone with its offset; txs
// gives each node's commit its time.
TEST(OperatorView, LocalTimesCarryTheirOffset) {
  const char* tz = std::getenv("TZ");
  const std::string saved = tz != nullptr ? tz : "";
  setenv("TZ", "Asia/Kolkata", 1);
  tzset();
  auto local = RunCli({"cuts", "--local", kCleanNodes});
  auto txs = RunCli({"txs", "--local", kCleanNodes});
  auto utc = RunCli({"cuts", kCleanNodes});
  if (tz != nullptr) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  ASSERT_EQ(local.code, 0) << local.err;
  EXPECT_NE(local.out.find("+05:30 finished 2026-12-03T"), std::string::npos) << local.out.substr(0, 400);
  EXPECT_EQ(local.out.find("Z finished"), std::string::npos);
  EXPECT_NE(utc.out.find("Z finished 2026-12-03T"), std::string::npos) << utc.out.substr(0, 400);
  EXPECT_NE(txs.out.find(" ts 2026-12-03T"), std::string::npos) << txs.out.substr(0, 400);
  EXPECT_NE(txs.out.find("+05:30 writes "), std::string::npos) << txs.out.substr(0, 400);
}

// The timeline's time axis on Ignite's wall clock: the time of day first, then seconds
// since it, each label short enough not to run into the next.
TEST(OperatorView, IgniteTimelineAxisLabelsAreShort) {
  TempDir dir;
  const std::string svg = dir.path() + "/t.svg";
  ASSERT_EQ(RunCli({"cuts", "-q", "--svg", svg, kCleanNodes}).code, 0);
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> labels;
  for (size_t at = 0; (at = text.find("text-anchor=\"", at)) != std::string::npos; ++at) {
    const size_t open = text.find('>', at) + 1;
    labels.push_back(text.substr(open, text.find('<', open) - open));
  }
  ASSERT_GE(labels.size(), 6u);
  const std::vector<std::string> axis(labels.end() - 6, labels.end());
  EXPECT_EQ(axis[0].size(), 13u) << axis[0];  // HH:MM:SS.mmmZ
  EXPECT_EQ(axis[0].back(), 'Z') << axis[0];
  for (size_t i = 1; i < axis.size(); ++i) {
    EXPECT_EQ(axis[i].rfind("+", 0), 0u) << axis[i];
    EXPECT_LE(axis[i].size(), 10u) << axis[i];
  }
}

TEST(OperatorView, AHealthyWorkFolderDumpsWithoutWarnings) {
  auto r = RunCli({"dump", "--stats", kWal + "/server_0"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
}

TEST(OperatorView, TxsSaysWhatItDoesNotKnowInWords) {
  auto r = RunCli({"txs", kCleanNodes});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" near a node not read (order "), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("order-"), std::string::npos);
  EXPECT_EQ(r.out.find("participants \n"), std::string::npos);
}

TEST(OperatorView, AFolderOneLevelOffIsToldWhichToGive) {
  auto top = RunCli({"check", std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean"});
  EXPECT_EQ(top.code, 3);
  EXPECT_NE(top.err.find("give \"" + kCleanNodes + "\" instead"), std::string::npos) << top.err;
  for (const std::string& off : {kCleanNodes + "/server-0/work/db", kWal}) {
    auto r = RunCli({"check", off});
    EXPECT_EQ(r.code, 3) << off;
    EXPECT_NE(r.err.find("give the work directory \"" + kCleanNodes + "/server-0/work\" instead"), std::string::npos)
        << r.err;
  }
  // The work directory itself is read.
  EXPECT_EQ(RunCli({"dump", "--stats", "-q", kCleanNodes + "/server-0/work"}).code, 0);
}

}  // namespace
