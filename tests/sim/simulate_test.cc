// The simulator as an oracle: determinism, money conservation, agreeing copies, and the
// cut guarantee read back from the WALs with libwal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "recovery/partition_file.h"
#include "sim/simulate.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wal_sides.h"

namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

sim::SimConfig Config(const std::string& dir, uint32_t nodes, uint32_t backups, uint64_t seed) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.nodes = nodes;
  c.backups = backups;
  c.clients = 1;
  c.partitions = 16;
  c.accounts = 200;
  c.txs = 1500;
  c.concurrency = 12;
  c.cuts = 4;
  c.seed = seed;
  c.truth = true;
  c.segment_size = 256 << 10;
  return c;
}

std::map<std::string, std::string> TreeBytes(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) {
      out[fs::relative(e.path(), root).string()] = testing_support::ReadFile(e.path().string());
    }
  }
  return out;
}

TEST(Simulate, SameSeedGivesIdenticalBytesAndAnotherSeedDiffers) {
  TempDir a, b, c;
  ASSERT_TRUE(sim::Simulate(Config(a.path(), 3, 1, 7)).ok());
  ASSERT_TRUE(sim::Simulate(Config(b.path(), 3, 1, 7)).ok());
  ASSERT_TRUE(sim::Simulate(Config(c.path(), 3, 1, 8)).ok());
  auto ta = TreeBytes(a.path()), tb = TreeBytes(b.path()), tc = TreeBytes(c.path());
  ASSERT_GT(ta.size(), 10u);
  EXPECT_TRUE(ta == tb);
  EXPECT_NE(ta.at("node-0/wal/0000000000000000.wal"), tc.at("node-0/wal/0000000000000000.wal"));
}

// Transactions found on different sides of a complete cut on two nodes, or complete
// cuts missing a record somewhere: what a broken algorithm leaves behind.
size_t CutViolations(const std::string& dir, uint32_t nodes) {
  std::map<std::string, testing_support::NodeWal> wals;
  for (uint32_t i = 0; i < nodes; ++i) {
    std::string s = fmt::format("node-{}", i);
    wals[s] = testing_support::ReadNodeWal(dir + "/" + s + "/wal");
  }
  std::ifstream in(dir + "/truth/cuts.json");
  auto truth = nlohmann::json::parse(in);
  size_t violations = 0;
  for (const auto& c : truth["cuts"]) {
    if (c["verdict"] != "complete") continue;
    auto id = *wal::Uuid::Parse(c["id"].get<std::string>());
    bool all = true;
    for (auto& [s, w] : wals) all = all && w.cuts.count(id) && w.cuts.at(id).has_finish;
    if (!all) {
      ++violations;
      continue;
    }
    std::map<wal::TxId, bool> side;
    for (auto& [s, w] : wals) {
      for (const auto& [xid, at] : w.commits) {
        bool before = w.Side(id, xid, at);
        auto [it, fresh] = side.emplace(xid, before);
        if (!fresh && it->second != before) ++violations;
      }
    }
  }
  return violations;
}

struct Shape {
  uint32_t nodes, backups;
};

class SimulateSweep : public ::testing::TestWithParam<std::tuple<Shape, uint64_t>> {};

TEST_P(SimulateSweep, CompleteCutsAreConsistentMoneyIsConservedCopiesAgree) {
  auto [shape, seed] = GetParam();
  TempDir dir;
  sim::SimConfig cfg = Config(dir.path(), shape.nodes, shape.backups, seed);
  cfg.fifo = seed % 2 == 0;
  cfg.start_delay_us = seed % 3 == 0 ? 0 : 300;
  if (seed == 4) cfg.rollback_rate = 0.1;  // rolled-back 2PC transactions: RollbackRecords
  if (seed == 5) {                         // contention: lock timeouts roll back before prepare
    cfg.lock_timeout_ms = 0.5;
    cfg.concurrency = 48;
    cfg.accounts = 40;
  }
  auto summary = sim::Simulate(cfg);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->txs_committed + summary->txs_rolled_back, cfg.txs);
  EXPECT_EQ(summary->cuts_started, cfg.cuts);
  if (seed >= 4) {
    EXPECT_GT(summary->txs_rolled_back, 0u);
  }

  // Read every server's WAL back.
  std::vector<std::string> servers;
  for (uint32_t i = 0; i < shape.nodes; ++i) servers.push_back(fmt::format("node-{}", i));
  std::map<std::string, testing_support::NodeWal> wals;
  for (const auto& s : servers) {
    wals[s] = testing_support::ReadNodeWal(dir.path() + "/" + s + "/wal");
    ASSERT_EQ(wals[s].errors, 0u) << s;
  }
  std::ifstream cuts_in(dir.path() + "/truth/cuts.json");
  auto truth = nlohmann::json::parse(cuts_in);
  size_t complete = 0;
  for (const auto& c : truth["cuts"]) {
    auto id = *wal::Uuid::Parse(c["id"].get<std::string>());
    if (c["verdict"] != "complete") continue;
    ++complete;
    // Start and Finish on every server, Start first.
    for (const auto& s : servers) {
      ASSERT_TRUE(wals[s].cuts.count(id)) << s;
      const auto& on = wals[s].cuts.at(id);
      EXPECT_TRUE(on.has_start && on.has_finish) << s;
      EXPECT_LT(on.start, on.finish) << s;
    }
    // Every transaction on the same side on every node that committed it.
    std::map<wal::TxId, std::pair<bool, std::string>> side;
    for (const auto& s : servers) {
      for (const auto& [xid, at] : wals[s].commits) {
        bool before = wals[s].Side(id, xid, at);
        auto [it, fresh] = side.emplace(xid, std::make_pair(before, s));
        if (!fresh) {
          ASSERT_EQ(it->second.first, before)
              << "tx " << xid.ToString() << " is " << (before ? "Before" : "After") << " on " << s << " but not on "
              << it->second.second << " for cut " << id.ToString();
        }
      }
    }
  }
  EXPECT_EQ(complete, summary->cuts_consistent);
  EXPECT_GT(complete, 0u);

  // Money in data/: every partition's copies agree, and the sum is what was put in.
  std::map<uint32_t, std::vector<recovery::PartitionFile>> copies;
  for (const auto& s : servers) {
    for (const auto& e : fs::directory_iterator(dir.path() + "/" + s + "/data")) {
      auto f = recovery::ReadPartitionFile(e.path().string());
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      EXPECT_EQ(f->lwm, f->hwm) << "gap left in " << e.path();
      copies[f->partition].push_back(*f);
    }
  }
  ASSERT_EQ(copies.size(), cfg.partitions);
  int64_t total = 0;
  for (const auto& [p, fs_] : copies) {
    EXPECT_EQ(fs_.size(), shape.backups + 1u);
    for (const auto& f : fs_) {
      EXPECT_EQ(f.hwm, fs_[0].hwm) << "partition " << p;
      EXPECT_EQ(recovery::ContentHash(f), recovery::ContentHash(fs_[0])) << "partition " << p;
    }
    for (const auto& e : fs_[0].entries) total += std::stoll(e.value);
  }
  EXPECT_EQ(total, int64_t{cfg.accounts} * cfg.balance);
}

std::string SweepName(const ::testing::TestParamInfo<std::tuple<Shape, uint64_t>>& p) {
  const Shape& shape = std::get<0>(p.param);
  return fmt::format("n{}b{}seed{}", shape.nodes, shape.backups, std::get<1>(p.param));
}

INSTANTIATE_TEST_SUITE_P(Shapes, SimulateSweep,
                         ::testing::Combine(::testing::Values(Shape{3, 0}, Shape{2, 1}, Shape{3, 2}, Shape{5, 1}),
                                            ::testing::Values(uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{4},
                                                              uint64_t{5})),
                         SweepName);

// The check above must be able to fail: with a broken cut algorithm the same reading of
// the WALs finds transactions on both sides of a cut that the initiator called complete.
class InjectedBugSweep : public ::testing::TestWithParam<cut::InjectedBug> {};

TEST_P(InjectedBugSweep, ReaderOfTheWalFindsTheBrokenCut) {
  const int kSeeds = 12;
  int caught = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    TempDir dir;
    sim::SimConfig cfg = Config(dir.path(), 3, 1, static_cast<uint64_t>(seed));
    cfg.bug = GetParam();
    cfg.cuts = 6;
    cfg.start_delay_us = 400;
    cfg.discovery_delay_us = 3000;  // wrapping, not discovery, is what starts most nodes
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    caught += CutViolations(dir.path(), 3) > 0;
  }
  std::printf("[ share    ] %s: broken cut found in %d of %d seeds\n", cut::InjectedBugName(GetParam()), caught,
              kSeeds);
  // Exact, as the simulator is deterministic: every mode breaks a cut in every seed.
  EXPECT_EQ(caught, kSeeds) << "the broken cut went unnoticed in some seeds";
}

INSTANTIATE_TEST_SUITE_P(Bugs, InjectedBugSweep,
                         ::testing::Values(cut::InjectedBug::kNoTxCutId, cut::InjectedBug::kNoWrap,
                                           cut::InjectedBug::kEarlyFinish),
                         [](const auto& p) {
                           std::string n = cut::InjectedBugName(p.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Simulate, TheUnbrokenAlgorithmLeavesNoViolationUnderTheSameStress) {
  for (int seed = 1; seed <= 12; ++seed) {
    TempDir dir;
    sim::SimConfig cfg = Config(dir.path(), 3, 1, static_cast<uint64_t>(seed));
    cfg.cuts = 6;
    cfg.start_delay_us = 400;
    cfg.discovery_delay_us = 3000;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    EXPECT_EQ(CutViolations(dir.path(), 3), 0u) << "seed " << seed;
  }
}

TEST(SimulateCli, RefusesANonEmptyOutputDirectory) {
  TempDir dir;
  std::ofstream(dir.path() + "/keep") << "x";
  auto r = testing_support::RunCli({"simulate", "-o", dir.path(), "--txs", "10"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(fs::exists(dir.path() + "/keep"));
}

TEST(SimulateCli, MakesMissingParentsAndTakesATrailingSlash) {
  TempDir dir;
  auto r = testing_support::RunCli({"simulate", "-q", "-o", dir.path() + "/a/b/c/", "--txs", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path() + "/a/b/c/cluster.json"));
  EXPECT_FALSE(fs::exists(dir.path() + "/a/b/c.partial"));
  EXPECT_FALSE(fs::exists(dir.path() + "/a/b/c/.partial"));
  // As mkdir -p takes it: "x/../y" makes x, then y beside it.
  ASSERT_EQ(testing_support::RunCli({"simulate", "-q", "-o", dir.path() + "/x/../y", "--txs", "10"}).code, 0);
  EXPECT_TRUE(fs::exists(dir.path() + "/y/cluster.json"));
}

TEST(SimulateCli, JsonSummaryCountsEveryClassificationPath) {
  TempDir dir;
  auto r = testing_support::RunCli({"simulate", "-o", dir.path() + "/c", "--json", "--txs", "4000", "--cuts", "6",
                                    "--start-delay", "500", "--accounts", "100"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["txs_committed"].get<int>() + j["txs_rolled_back"].get<int>(), 4000);
  EXPECT_EQ(j["cuts_started"], 6);
  EXPECT_GT(j["classification"]["before"].get<int>(), 0);
  EXPECT_GT(j["classification"]["after_by_stamp"].get<int>(), 0);
  EXPECT_GT(j["classification"]["committed_in_start_step"].get<int>(), 0);
  EXPECT_EQ(j["nodes"].size(), 3u);
}

// Faults are part of the seed: the same options give the same bytes, WALs with torn
// tails, snapshots after a crash and truth files included.
TEST(Simulate, FaultRunsAreDeterministic) {
  TempDir a, b;
  std::vector<std::string> args = {"--txs",
                                   "3000",
                                   "--nodes",
                                   "4",
                                   "--backups",
                                   "2",
                                   "--clients",
                                   "2",
                                   "--crash",
                                   "node-1@900",
                                   "--torn-tail",
                                   "--crash-client",
                                   "client-0@1500",
                                   "--join-client",
                                   "@400",
                                   "--crash",
                                   "node-3@2ms",
                                   "--unknown-rate",
                                   "0.02",
                                   "--rollback-rate",
                                   "0.05",
                                   "--truth",
                                   "-q",
                                   "--seed",
                                   "11"};
  for (const auto* d : {&a, &b}) {
    std::vector<std::string> full = {"simulate", "-o", d->path() + "/c"};
    full.insert(full.end(), args.begin(), args.end());
    auto r = testing_support::RunCli(full);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  auto ta = TreeBytes(a.path()), tb = TreeBytes(b.path());
  EXPECT_TRUE(ta.count("c/node-0/snapshots/snap-1/snapshot.json"));
  auto any_under = [&](const std::string& prefix) {
    return std::any_of(ta.begin(), ta.end(), [&](const auto& kv) { return kv.first.starts_with(prefix); });
  };
  EXPECT_TRUE(any_under("c/node-0/data/"));
  EXPECT_FALSE(any_under("c/node-1/data/")) << "a crashed server has no data/";
  EXPECT_TRUE(ta == tb);
}

// Fault options that cannot work are usage errors (exit 2), and nothing is written.
TEST(SimulateCli, RefusesFaultsTheClusterCannotTake) {
  const std::vector<std::vector<std::string>> bad = {
      {"--crash", "node-1"},       // no @WHEN
      {"--crash", "node-1@soon"},  // not a count or a time
      {"--crash", "node-1@-5"},
      {"--crash", "node-9@100"},         // no such server
      {"--crash", "client-0@100"},       // a client, not a server
      {"--crash-client", "node-0@100"},  // a server, not a client
      {"--crash", "node-0@100", "--crash", "node-0@200"},
      {"--crash", "node-0@100", "--crash", "node-1@100", "--crash", "node-2@100"},  // no survivor
      {"--crash", "node-0@100", "--backups", "0"},                                  // its partitions would be lost
      {"--torn-tail"},                                                              // without --crash
      {"--join-client", "node-1@100"},                                              // a join names no node
      {"--unknown-rate", "1.5"},
  };
  for (const auto& extra : bad) {
    TempDir dir;
    std::vector<std::string> args = {"simulate", "-o", dir.path() + "/c", "--txs", "500", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testing_support::RunCli(args);
    std::string shown;
    for (const auto& e : extra) shown += e + " ";
    EXPECT_EQ(r.code, 2) << shown << r.err;
    EXPECT_FALSE(r.err.empty()) << shown;
    EXPECT_FALSE(fs::exists(dir.path() + "/c/cluster.json")) << shown;
  }
}

// Runs without faults must not move when fault code or a bug mode's code changes: the
// bytes of one run per --inject-bug mode (WALs, partition files, JSON, truth) are pinned
// by their XXH3. A deliberate change of the format or of the simulation regenerates them
// with WALCUT_UPDATE_GOLDEN=1 (and says so in its commit).
TEST(Simulate, RunsWithoutFaultsKeepTheirPinnedBytes) {
  const std::string golden = std::string(WALCUT_SOURCE_DIR) + "/testdata/golden/simulate-fingerprints.txt";
  std::string now;
  for (auto bug : {cut::InjectedBug::kNone, cut::InjectedBug::kNoTxCutId, cut::InjectedBug::kNoWrap,
                   cut::InjectedBug::kEarlyFinish, cut::InjectedBug::kIgnoreRecovery}) {
    TempDir dir;
    sim::SimConfig c = Config(dir.path(), 3, 1, 5);
    c.txs = 3000;
    c.clients = 2;
    c.rollback_rate = 0.1;
    c.bug = bug;
    ASSERT_TRUE(sim::Simulate(c).ok());
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    for (const auto& [path, bytes] : TreeBytes(dir.path())) {
      XXH3_64bits_update(st, path.data(), path.size() + 1);  // with its NUL: a separator
      XXH3_64bits_update(st, bytes.data(), bytes.size());
    }
    now += fmt::format("{} {:016x}\n", cut::InjectedBugName(bug), XXH3_64bits_digest(st));
    XXH3_freeState(st);
  }
  if (std::getenv("WALCUT_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden) << now;
    GTEST_SKIP() << "wrote " << golden;
  }
  EXPECT_EQ(testing_support::ReadFile(golden), now) << "a run without faults changed its bytes";
}

}  // namespace
