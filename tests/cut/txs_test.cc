// walcut txs: the transaction table across nodes, and --in-doubt finding a transaction
// that one participant never committed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "sim/simulate.h"

namespace {

using testing_support::RunCli;

TEST(Txs, ShowsEveryParticipantWithStateCommitAndSides) {
  testing_support::TempDir dir;
  std::string c = dir.path() + "/c";
  sim::SimConfig cfg;
  cfg.out_dir = c;
  cfg.txs = 800;
  cfg.seed = 2;
  cfg.backups = 2;
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  auto all = nlohmann::json::parse(RunCli({"txs", "--json", c}).out);
  ASSERT_GE(all["txs"].size(), 800u);
  for (const auto& t : all["txs"]) {
    EXPECT_FALSE(t["in_doubt"].get<bool>()) << t.dump();
    for (const auto& n : t["nodes"]) {
      EXPECT_EQ(n["state"], "COMMITTED") << t.dump();
      EXPECT_FALSE(n["commits"].empty());
      EXPECT_EQ(n["sides"].size(), 3u);  // three complete cuts
    }
  }
  EXPECT_EQ(RunCli({"txs", "--in-doubt", "-q", c}).code, 0);
  EXPECT_EQ(RunCli({"txs", "--tx", "9.9.9", c}).code, 1);
  EXPECT_EQ(RunCli({"txs", "--tx", "nope", c}).code, 2);
  // node-1 never logged one COMMITTED record: that transaction is in doubt.
  std::string victim;
  ASSERT_TRUE(testing_support::RewriteWal(c + "/node-1/wal", [&](wal::AnyRecord& a) {
    if (victim.empty() && a.type == static_cast<uint8_t>(wal::RecordType::kTx) && a.tx.state == wal::TxState::kCommitted &&
        a.tx.xid.order > 100) {
      victim = a.tx.xid.ToString();
      return 0;
    }
    return 1;
  }));
  auto doubt = nlohmann::json::parse(RunCli({"txs", "--json", "--in-doubt", c}).out);
  ASSERT_EQ(doubt["txs"].size(), 1u) << doubt.dump(1);
  EXPECT_EQ(doubt["txs"][0]["tx"], victim);
  bool prepared_on_1 = false;
  for (const auto& n : doubt["txs"][0]["nodes"]) prepared_on_1 |= n["node"] == "node-1" && n["state"] == "PREPARED";
  EXPECT_TRUE(prepared_on_1);
}

}  // namespace
