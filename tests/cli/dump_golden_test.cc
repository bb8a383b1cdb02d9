// Golden tests: `walcut dump` on the small committed WALs of testdata/, byte for byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/run_cli.h"

namespace {

using testing_support::MatchesGolden;
using testing_support::RunCli;

class DumpGolden : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(chdir(WALCUT_SOURCE_DIR), 0); }

  void Check(const std::vector<std::string>& args, const std::string& golden, int code = 0) {
    auto r = RunCli(args);
    EXPECT_EQ(r.code, code) << r.err;
    std::string why;
    EXPECT_TRUE(MatchesGolden("testdata/golden/" + golden, r.out, &why)) << why;
  }
};

TEST_F(DumpGolden, TextOfANodeDirectory) { Check({"dump", "testdata/tiny/node-0"}, "dump-node0.txt"); }

TEST_F(DumpGolden, JsonOfACompressedNode) { Check({"dump", "--json", "testdata/tiny/node-1"}, "dump-node1.jsonl"); }

TEST_F(DumpGolden, StatsOfTheClusterDirectory) { Check({"dump", "--stats", "testdata/tiny"}, "dump-stats.txt"); }

TEST_F(DumpGolden, StatsAsJson) { Check({"dump", "--stats", "--json", "testdata/tiny"}, "dump-stats.json"); }

TEST_F(DumpGolden, FilterByKeyShowsOnlyMatchingEntries) {
  Check({"dump", "--key", "acct-6", "testdata/tiny/node-0"}, "dump-key.txt");
}

TEST_F(DumpGolden, FilterByTxAcrossRecordTypes) { Check({"dump", "--tx", "1.1.13", "testdata/tiny"}, "dump-tx.txt"); }

TEST_F(DumpGolden, ValuesHashed) {
  Check({"dump", "--values", "hash", "--type", "data", "--limit", "3", "testdata/tiny/node-0"}, "dump-values-hash.txt");
}

TEST_F(DumpGolden, SingleSegmentFile) {
  Check({"dump", "testdata/tiny/node-0/wal/0000000000000001.wal"}, "dump-segment1.txt");
}

}  // namespace
