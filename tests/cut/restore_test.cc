// walcut restore / verify: every consistent cut of simulated clusters restores to
// agreeing copies that hold all the money; cut k's state is contained in cut k+1's;
// restoring twice gives the same bytes; broken algorithms are caught at restore time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "recovery/partition_file.h"
#include "sim/simulate.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

sim::SimConfig RestoreConfig(const std::string& dir, uint32_t nodes, uint32_t backups, uint64_t seed) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.nodes = nodes;
  c.backups = backups;
  c.partitions = 12;
  c.accounts = 60 + static_cast<uint32_t>(seed) * 11;
  c.txs = 1500;
  c.concurrency = 8 + static_cast<uint32_t>(seed % 4) * 8;
  c.cuts = 4;
  c.seed = seed;
  c.start_delay_us = static_cast<double>(seed % 3) * 300;
  c.discovery_delay_us = 300 + static_cast<double>(seed % 4) * 1000;
  c.fifo = seed % 2 == 1;
  c.rollback_rate = seed % 3 == 1 ? 0.05 : 0;
  c.lock_timeout_ms = seed % 4 == 3 ? 1 : 100;
  c.segment_size = 64 << 10;
  return c;
}

// (cache, partition) -> key -> (value, counter) of one node's restored data; the
// partition's own counter under the key "".
using State = std::map<std::string, std::map<std::string, std::pair<std::string, uint64_t>>>;

State ReadState(const std::string& data_dir) {
  State s;
  for (const auto& e : fs::directory_iterator(data_dir)) {
    auto f = recovery::ReadPartitionFile(e.path().string());
    EXPECT_TRUE(f.ok());
    auto& m = s[e.path().filename().string()];
    m[""] = {"", f->lwm};
    for (const auto& en : f->entries) m[en.key] = {en.value, en.counter};
  }
  return s;
}

int64_t Money(const std::string& dir) {
  auto j = nlohmann::json::parse(RunCli({"data", "--json", dir}).out);
  std::map<int, int64_t> by_partition;
  for (const auto& n : j["nodes"]) {
    for (const auto& p : n["partitions"]) {
      int64_t sum = 0;
      for (const auto& e : p["entries"]) sum += std::stoll(e["value"].get<std::string>());
      by_partition[p["partition"].get<int>()] = sum;  // copies agree (verify checks it)
    }
  }
  int64_t total = 0;
  for (const auto& [p, s] : by_partition) total += s;
  return total;
}

class RestoreSweep : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, uint64_t>> {};

TEST_P(RestoreSweep, EveryConsistentCutRestoresVerifiesAndConservesMoney) {
  auto [nodes, backups, seed] = GetParam();
  TempDir dir;
  std::string c = dir.path() + "/c";
  sim::SimConfig cfg = RestoreConfig(c, nodes, backups, seed);
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c}).out)["cuts"];
  std::vector<State> states;
  int restored = 0;
  for (const auto& k : cuts) {
    if (k["status"] != "consistent") continue;
    std::string out = fmt::format("{}/r{}", dir.path(), restored++);
    auto r = RunCli({"restore", c, "--cut", k["id"].get<std::string>(), "-o", out, "--jobs", "2"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto v = RunCli({"verify", out});
    ASSERT_EQ(v.code, 0) << v.out;
    EXPECT_EQ(Money(out), int64_t{cfg.accounts} * cfg.balance) << "cut " << k["id"];
    // Cut k's state is contained in cut k+1's: per partition and per key still there,
    // the counter of the last write applied never decreases (a key gone was deleted).
    State s = ReadState(out + "/node-0/data");
    if (!states.empty()) {
      for (const auto& [file, keys] : states.back()) {
        for (const auto& [key, vc] : keys) {
          auto later = s[file].find(key);
          if (later != s[file].end()) {
            ASSERT_LE(vc.second, later->second.second) << file << " " << key;
          }
        }
      }
    }
    states.push_back(std::move(s));
  }
  EXPECT_GE(restored, 2);
}

INSTANTIATE_TEST_SUITE_P(Clusters, RestoreSweep,
                         ::testing::Combine(::testing::Values(3u, 4u), ::testing::Values(1u, 2u),
                                            ::testing::Values(uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{4})));

TEST(Restore, TwiceGivesIdenticalBytes) {
  TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(sim::Simulate(RestoreConfig(c, 3, 1, 5)).ok());
  ASSERT_EQ(RunCli({"restore", c, "--latest", "-o", dir.path() + "/a"}).code, 0);
  // "b/" names b, as a shell's completion writes it; missing parents are made.
  ASSERT_EQ(RunCli({"restore", c, "--latest", "-o", dir.path() + "/b/", "--jobs", "1"}).code, 0);
  EXPECT_FALSE(fs::exists(dir.path() + "/b/.partial"));
  ASSERT_EQ(RunCli({"restore", c, "--latest", "-o", dir.path() + "/p/q/c"}).code, 0);
  EXPECT_EQ(RunCli({"verify", "-q", dir.path() + "/p/q/c"}).code, 0);
  for (const auto& e : fs::recursive_directory_iterator(dir.path() + "/a")) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir.path() + "/a").string();
    EXPECT_EQ(testing_support::ReadFile(e.path().string()), testing_support::ReadFile(dir.path() + "/b/" + rel)) << rel;
  }
}

TEST(Restore, RefusesANonEmptyOutputAndAnInconsistentCut) {
  TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(sim::Simulate(RestoreConfig(c, 3, 1, 6)).ok());
  fs::create_directories(dir.path() + "/full");
  std::ofstream(dir.path() + "/full/keep") << "x";
  EXPECT_EQ(RunCli({"restore", c, "--latest", "-o", dir.path() + "/full"}).code, 2);
  EXPECT_TRUE(fs::exists(dir.path() + "/full/keep"));
  // Refused before any WAL is read: the output's error comes first, even when the
  // input cannot be read at all.
  auto early = RunCli({"restore", dir.path() + "/no-such-cluster", "--latest", "-o", dir.path() + "/full"});
  EXPECT_EQ(early.code, 2) << early.err;
  EXPECT_NE(early.err.find("exists and is not an empty directory"), std::string::npos) << early.err;
  std::ofstream(dir.path() + "/file") << "x";
  auto no_parent = RunCli({"restore", dir.path() + "/no-such-cluster", "--latest", "-o", dir.path() + "/file/a/out"});
  EXPECT_EQ(no_parent.code, 3) << no_parent.err;
  EXPECT_NE(no_parent.err.find("is not a directory"), std::string::npos) << no_parent.err;
  // "OUT/" is OUT.
  EXPECT_EQ(RunCli({"restore", c, "--latest", "-o", dir.path() + "/full/"}).code, 2);
  EXPECT_EQ(RunCli({"restore", c, "--latest"}).code, 2);               // no -o
  EXPECT_EQ(RunCli({"restore", c, "-o", dir.path() + "/x"}).code, 2);  // no cut chosen
  EXPECT_EQ(RunCli({"restore", c, "--increment", "99", "-o", dir.path() + "/x"}).code, 1);
  // A damaged base snapshot is refused, naming the file.
  auto files = fs::directory_iterator(c + "/node-1/snapshots/base");
  for (const auto& e : files) {
    if (e.path().extension() == ".dat") {
      std::ofstream(e.path(), std::ios::app) << "junk";
      break;
    }
  }
  // (Its output's missing parents, made when the writing began, go with it.)
  auto r = RunCli({"restore", c, "--latest", "-o", dir.path() + "/new/y"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("node-1/snapshots/base"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/new"));
}

TEST(Restore, DryRunWritesNothing) {
  TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(sim::Simulate(RestoreConfig(c, 3, 1, 7)).ok());
  auto r = RunCli({"restore", c, "--increment", "1", "--dry-run", "-o", dir.path() + "/out"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("restore plan"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path() + "/out"));
  EXPECT_FALSE(fs::exists(dir.path() + "/out.partial"));
}

TEST(Verify, FindsAChangedValueAndAFileThatDoesNotMatchTheManifest) {
  TempDir dir;
  std::string c = dir.path() + "/c", out = dir.path() + "/r";
  ASSERT_TRUE(sim::Simulate(RestoreConfig(c, 3, 1, 8)).ok());
  ASSERT_EQ(RunCli({"restore", c, "--latest", "-o", out}).code, 0);
  ASSERT_EQ(RunCli({"verify", out}).code, 0);
  std::string file;
  for (const auto& e : fs::directory_iterator(out + "/node-2/data")) file = e.path().string();
  auto pf = recovery::ReadPartitionFile(file);
  ASSERT_TRUE(pf.ok());
  pf->entries[0].value = "999999";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << recovery::EncodePartitionFile(*pf);
  auto v = nlohmann::json::parse(RunCli({"verify", "--json", out}).out);
  EXPECT_FALSE(v["ok"].get<bool>());
  std::set<std::string> kinds;
  for (const auto& k : v["conflicts"]) kinds.insert(k["kind"].get<std::string>());
  EXPECT_TRUE(kinds.count("content"));
  EXPECT_TRUE(kinds.count("manifest"));
  EXPECT_EQ(RunCli({"verify", out}).code, 1);
}

// Restores of cuts that a broken algorithm produced: refused, failing verify, or not
// conserving money. The share is exact, as the simulator is deterministic (a seed gives the
// same run, on every compiler): the cuts not caught are those the broken algorithm happened
// to get right.
TEST(Restore, BrokenCutsAreCaught) {
  const std::pair<cut::InjectedBug, int> kCaught[] = {
      {cut::InjectedBug::kNoTxCutId, 21}, {cut::InjectedBug::kNoWrap, 21}, {cut::InjectedBug::kEarlyFinish, 22}};
  for (const auto& [bug, want] : kCaught) {
    int attempts = 0, caught = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      TempDir dir;
      std::string c = dir.path() + "/c";
      sim::SimConfig cfg = RestoreConfig(c, 3, 1, seed);
      cfg.bug = bug;
      ASSERT_TRUE(sim::Simulate(cfg).ok());
      std::ifstream in(c + "/truth/cuts.json");
      // Every cut the initiator called complete (a broken algorithm believes its cuts).
      auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c}).out)["cuts"];
      for (const auto& k : cuts) {
        ++attempts;
        std::string out = fmt::format("{}/r{}", dir.path(), attempts);
        auto r = RunCli({"restore", c, "--cut", k["id"].get<std::string>(), "-o", out});
        bool bad =
            r.code != 0 || RunCli({"verify", "-q", out}).code != 0 || Money(out) != int64_t{cfg.accounts} * cfg.balance;
        caught += bad;
      }
    }
    std::printf("[ share    ] %s: %d of %d restores refused or caught\n", cut::InjectedBugName(bug), caught, attempts);
    EXPECT_EQ(attempts, 24) << cut::InjectedBugName(bug);
    EXPECT_EQ(caught, want) << cut::InjectedBugName(bug);
  }
}

}  // namespace
