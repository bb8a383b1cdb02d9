// Sweeps mixing every fault (server and client crashes, torn tails, joins, rollbacks,
// UNKNOWN outcomes) over many seeds, read back with the tools: every cut the simulator
// saw complete is consistent by `check` (from the WALs and from summaries alike) and
// every other is not; money is conserved and copies agree in every surviving node's
// data/; no surviving copy is left with a gap; the latest consistent cut restores and
// verifies. Then, with each broken algorithm, the share of seeds `check` catches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "recovery/partition_file.h"
#include "sim/simulate.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

sim::Fault At(sim::FaultKind kind, const std::string& node, uint64_t txs) {
  sim::Fault f;
  f.kind = kind;
  f.node = node;
  f.when.txs = txs;
  return f;
}

sim::SimConfig Mixed(const std::string& dir, uint64_t seed) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.seed = seed;
  c.nodes = 3 + static_cast<uint32_t>(seed % 3);
  c.backups = 1 + static_cast<uint32_t>(seed % 2);
  c.clients = 1 + static_cast<uint32_t>(seed % 2);
  c.partitions = 16;
  c.accounts = 150 + static_cast<uint32_t>(seed) * 7;
  c.txs = 2000;
  c.concurrency = 6 + static_cast<uint32_t>(seed % 4) * 4;
  c.cuts = 6;
  c.truth = true;
  c.rollback_rate = 0.05;
  c.unknown_rate = seed % 2 == 0 ? 0.01 : 0;
  c.discovery_delay_us = 200 + static_cast<double>(seed % 3) * 600;
  c.start_delay_us = static_cast<double>(seed % 4) * 150;
  c.fifo = seed % 3 == 1;
  c.segment_size = 128 << 10;
  c.torn_tail = seed % 2 == 0;
  c.faults.push_back(
      At(sim::FaultKind::kCrashServer, fmt::format("node-{}", seed % c.nodes), 300 + (seed * 137) % 1200));
  if (c.backups == 2 && c.nodes >= 4) {
    c.faults.push_back(At(sim::FaultKind::kCrashServer, fmt::format("node-{}", (seed + 1) % c.nodes), 1500));
  }
  if (seed % 4 != 0) c.faults.push_back(At(sim::FaultKind::kJoinClient, "", (seed * 97) % 1500));
  if (seed % 2 == 1) c.faults.push_back(At(sim::FaultKind::kCrashClient, "client-0", 100 + (seed * 211) % 1500));
  return c;
}

nlohmann::json SweepJson(const std::vector<std::string>& args, int* code = nullptr) {
  auto r = RunCli(args);
  if (code) *code = r.code;
  EXPECT_FALSE(r.out.empty()) << r.err;
  if (r.out.empty()) return nlohmann::json::object();
  return nlohmann::json::parse(r.out);
}

std::vector<std::string> Servers(const std::string& c, bool survivors_only) {
  std::ifstream in(c + "/cluster.json");
  std::vector<std::string> out;
  const auto doc = nlohmann::json::parse(in);
  for (const auto& n : doc["nodes"]) {
    if (n["role"] != "server") continue;
    if (survivors_only && n.contains("left_topology_version")) continue;
    out.push_back(n["name"].get<std::string>());
  }
  return out;
}

// Money in one copy of each partition of `root`'s nodes; every copy agrees, no gap.
int64_t Money(const std::string& root, const std::vector<std::string>& nodes, uint32_t partitions) {
  std::map<uint32_t, recovery::PartitionFile> first;
  int64_t total = 0;
  for (const auto& n : nodes) {
    for (const auto& f : recovery::ListPartitionFiles(root + "/" + n + "/data")) {
      auto pf = recovery::ReadPartitionFile(f);
      EXPECT_TRUE(pf.ok()) << f;
      if (!pf.ok()) continue;
      EXPECT_EQ(pf->lwm, pf->hwm) << f << ": a gap is left";
      auto [it, fresh] = first.emplace(pf->partition, *pf);
      if (fresh) {
        for (const auto& e : pf->entries) total += std::stoll(e.value);
      } else {
        EXPECT_EQ(recovery::ContentHash(it->second), recovery::ContentHash(*pf)) << f << " differs from another copy";
      }
    }
  }
  EXPECT_EQ(first.size(), partitions) << "a partition has no copy under " << root;
  return total;
}

class FaultSweep : public ::testing::TestWithParam<uint64_t> {};

TEST_P(FaultSweep, CompleteCutsConsistentMoneyConservedNoGapsRestoreVerifies) {
  const uint64_t seed = GetParam();
  TempDir dir;
  const std::string c = dir.path() + "/c";
  sim::SimConfig cfg = Mixed(c, seed);
  auto summary = sim::Simulate(cfg);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_GE(summary->crashes, 1u);
  const int64_t total = int64_t{cfg.accounts} * cfg.balance;

  // Verdicts: the initiator's against check's, from the WALs and from summaries.
  int code = -1;
  auto check = SweepJson({"check", "--json", c}, &code);
  EXPECT_EQ(code, 0) << check.dump(1);
  std::ifstream in(c + "/truth/cuts.json");
  auto truth = nlohmann::json::parse(in)["cuts"];
  size_t complete = 0;
  for (const auto& t : truth) {
    bool found = false;
    for (const auto& k : check["cuts"]) {
      if (k["id"] != t["id"]) continue;
      found = true;
      EXPECT_EQ(k["status"] == "consistent", t["verdict"] == "complete") << k.dump() << " truth " << t.dump();
      EXPECT_TRUE(k["status"] != "consistent" || k["violations"].empty()) << k.dump();
    }
    // A cut that failed everywhere before any Start record leaves nothing to find.
    EXPECT_TRUE(found || t["verdict"] != "complete") << t.dump();
    complete += t["verdict"] == "complete";
  }
  EXPECT_GE(complete, 1u);
  std::printf(
      "[ faults   ] seed %llu: %llu crashed, %llu joined, %llu recovered, %llu gaps closed; cuts %zu complete of %zu\n",
      static_cast<unsigned long long>(seed), static_cast<unsigned long long>(summary->crashes),
      static_cast<unsigned long long>(summary->joins), static_cast<unsigned long long>(summary->txs_recovered),
      static_cast<unsigned long long>(summary->gaps_closed), complete, truth.size());
  // Summaries of every server, with the cluster file for the cuts' baselines.
  std::vector<std::string> args = {"check", "--json", "--cluster", c + "/cluster.json", "--summaries"};
  for (const auto& n : Servers(c, false)) {
    std::string f = fmt::format("{}/{}.summary", dir.path(), n);
    ASSERT_EQ(RunCli({"cuts", c + "/" + n, "--summary", f}).code, 0);
    args.push_back(f);
  }
  EXPECT_EQ(SweepJson(args), check);

  // The survivors: money, agreeing copies, no gap in data/ or in the WAL.
  const auto survivors = Servers(c, true);
  EXPECT_LT(survivors.size(), cfg.nodes);
  EXPECT_EQ(Money(c, survivors, cfg.partitions), total);
  for (const auto& n : survivors) {
    auto g = RunCli({"gaps", c + "/" + n});
    EXPECT_EQ(g.code, 0) << n << ": " << g.out;
  }
  // Every node's WAL reads without an error (a torn tail is not one).
  auto dump = RunCli({"dump", "--stats", c});
  EXPECT_EQ(dump.code, 0) << dump.err;

  // The latest consistent cut restores, verifies and conserves money.
  const std::string out = dir.path() + "/restored";
  auto r = RunCli({"restore", c, "-o", out, "--latest"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto v = RunCli({"verify", out});
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  std::ifstream m(out + "/restore.json");
  std::vector<std::string> restored;
  const auto manifest = nlohmann::json::parse(m);
  for (const auto& n : manifest["nodes"]) restored.push_back(n["node"].get<std::string>());
  EXPECT_EQ(Money(out, restored, cfg.partitions), total);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FaultSweep, ::testing::Range(uint64_t{1}, uint64_t{41}));

// Random clusters and faults drawn from a fixed seed (shapes, near nodes, delays, cut
// spacing, up to two server crashes, client crashes, joins, rollbacks, UNKNOWN, torn
// tails): `check` passes with the correct algorithm, and its verdicts are the
// simulator's. This space found a cut started in the middle of an exchange, and a torn
// tail that cut short a Finish record the truth had counted.
TEST(RandomFaults, CheckPassesAndAgreesWithTheSimulatorOnEveryDraw) {
  std::mt19937_64 rng(20261202);
  auto pick = [&](std::initializer_list<double> v) { return *(v.begin() + static_cast<long>(rng() % v.size())); };
  for (int run = 0; run < 30; ++run) {
    TempDir dir;
    const std::string c = dir.path() + "/c";
    sim::SimConfig cfg;
    cfg.out_dir = c;
    cfg.seed = rng();
    cfg.nodes = static_cast<uint32_t>(pick({3, 4, 5}));
    cfg.backups = static_cast<uint32_t>(pick({1, 2}));
    if (cfg.backups >= cfg.nodes) cfg.backups = 1;
    cfg.clients = static_cast<uint32_t>(pick({1, 2, 3}));
    cfg.partitions = 16;
    cfg.accounts = static_cast<uint32_t>(pick({20, 100, 500}));
    cfg.txs = 1500;
    cfg.concurrency = static_cast<uint32_t>(pick({4, 16, 40}));
    cfg.cuts = static_cast<uint32_t>(pick({3, 8, 20}));
    cfg.keys_per_tx = static_cast<uint32_t>(pick({2, 3, 5}));
    cfg.lock_timeout_ms = pick({0.5, 100});
    cfg.discovery_delay_us = pick({200, 1000, 3000});
    cfg.start_delay_us = pick({0, 200, 1000});
    cfg.fifo = rng() % 2 == 0;
    cfg.rollback_rate = pick({0, 0.05});
    cfg.unknown_rate = pick({0, 0.01});
    cfg.torn_tail = rng() % 2 == 0;
    cfg.near = rng() % 3 == 0 ? sim::NearMode::kServers : sim::NearMode::kAny;
    cfg.truth = true;
    cfg.segment_size = 128 << 10;
    const uint32_t crashes = cfg.backups == 2 && cfg.nodes >= 4 ? static_cast<uint32_t>(1 + rng() % 2) : 1;
    std::vector<uint32_t> victims;
    while (victims.size() < crashes) {
      auto v = static_cast<uint32_t>(rng() % cfg.nodes);
      if (std::find(victims.begin(), victims.end(), v) == victims.end()) victims.push_back(v);
    }
    for (uint32_t v : victims)
      cfg.faults.push_back(At(sim::FaultKind::kCrashServer, fmt::format("node-{}", v), 100 + rng() % 1300));
    if (rng() % 2 == 0) cfg.faults.push_back(At(sim::FaultKind::kCrashClient, "client-0", 100 + rng() % 1300));
    for (uint64_t j = rng() % 3; j > 0; --j) cfg.faults.push_back(At(sim::FaultKind::kJoinClient, "", rng() % 1400));
    auto summary = sim::Simulate(cfg);
    ASSERT_TRUE(summary.ok()) << "run " << run << ": " << summary.status().ToString();
    auto r = RunCli({"check", "-q", c});
    EXPECT_EQ(r.code, 0) << "run " << run << " seed " << cfg.seed << ": " << RunCli({"check", c}).out;
    auto cuts = SweepJson({"cuts", "--json", c});
    std::ifstream in(c + "/truth/cuts.json");
    const auto truth = nlohmann::json::parse(in);
    for (const auto& t : truth["cuts"]) {
      std::string status = "absent";
      for (const auto& k : cuts["cuts"]) {
        if (k["id"] == t["id"]) status = k["status"].get<std::string>();
      }
      EXPECT_EQ(status == "consistent", t["verdict"] == "complete")
          << "run " << run << " seed " << cfg.seed << ": cut " << t.dump() << " is " << status;
    }
  }
}

// After a server crash the later cuts are increments of the survivors' snapshot: restore
// refuses to restore the crashed node to one (usage error), and restores it, with the
// others, to a cut before the crash; verify follows each cut's own assignment.
TEST(FaultRestore, ACrashedServerIsRestoredOnlyToCutsOfItsBaseline) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  sim::SimConfig cfg = Mixed(c, 3);
  cfg.faults = {At(sim::FaultKind::kCrashServer, "node-1", 900)};
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  auto cuts = SweepJson({"cuts", "--json", c});
  std::string before_crash, after_crash;
  for (const auto& k : cuts["cuts"]) {
    if (k["status"] != "consistent") continue;
    (k["base"] == "base" ? before_crash : after_crash) = k["id"].get<std::string>();
  }
  ASSERT_FALSE(before_crash.empty());
  ASSERT_FALSE(after_crash.empty());
  auto refused = RunCli({"restore", c, "-o", dir.path() + "/r0", "--cut", after_crash, "--node", "node-1"});
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("takes no part"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/r0"));
  for (const auto& [id, with_node1] : {std::pair{before_crash, true}, std::pair{after_crash, false}}) {
    const std::string out = dir.path() + "/r-" + id.substr(0, 8);
    auto r = RunCli({"restore", c, "-o", out, "--cut", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(fs::exists(out + "/node-1/data"), with_node1) << id;
    auto v = RunCli({"verify", out});
    EXPECT_EQ(v.code, 0) << v.out << v.err;
  }
}

// Recovery during cuts: three clients start every transaction and stop one after the
// other, the backups' finish requests are slow (so recovery finishes many transactions
// while a cut watches them), cuts follow each other every 40 transactions, and on odd
// seeds a server crashes too.
sim::SimConfig RecoveryHeavy(const std::string& dir, uint64_t seed, cut::InjectedBug bug) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.seed = seed;
  c.nodes = 3;
  c.backups = 2;
  c.clients = 3;
  c.near = sim::NearMode::kClients;
  c.txs = 2000;
  c.concurrency = 12;
  c.cuts = 40;
  c.cut_interval = 40;
  c.truth = true;
  c.segment_size = 256 << 10;
  c.delay_mean_by_type_us[sim::MsgType::kDhtFinishRequest] = 2000;
  c.bug = bug;
  c.faults.push_back(At(sim::FaultKind::kCrashClient, "client-0", 300 + seed * 50));
  c.faults.push_back(At(sim::FaultKind::kCrashClient, "client-1", 900 + seed * 40));
  c.faults.push_back(At(sim::FaultKind::kCrashClient, "client-2", 1500));
  if (seed % 2 == 1) c.faults.push_back(At(sim::FaultKind::kCrashServer, fmt::format("node-{}", seed % 3), 1200));
  return c;
}

// The share of seeds in which `check` finds a broken cut, per algorithm, under faults
// (12 seeds): exact, as the simulator is deterministic (a seed gives the same run, on every
// compiler). The correct algorithm must stay at 0.
struct BugShare {
  cut::InjectedBug bug;
  int caught;
};

class BugsUnderFaults : public ::testing::TestWithParam<BugShare> {};

TEST_P(BugsUnderFaults, CheckCatchesTheBrokenAlgorithmsAndPassesTheCorrectOne) {
  const int kSeeds = 12;
  int caught = 0, recovered = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    TempDir dir;
    const std::string c = dir.path() + "/c";
    auto summary = sim::Simulate(RecoveryHeavy(c, static_cast<uint64_t>(seed), GetParam().bug));
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    recovered += summary->txs_recovered > 0;
    auto r = RunCli({"check", "-q", c});
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
    caught += r.code == 1;
    if (GetParam().bug == cut::InjectedBug::kNone) {
      EXPECT_EQ(r.code, 0) << "seed " << seed << ": " << RunCli({"check", c}).out;
    }
  }
  std::printf("[ share    ] %s under faults: check caught %d of %d seeds\n", cut::InjectedBugName(GetParam().bug),
              caught, kSeeds);
  EXPECT_EQ(recovered, kSeeds) << "transaction recovery did not happen in every seed";
  EXPECT_EQ(caught, GetParam().caught);
}

INSTANTIATE_TEST_SUITE_P(Bugs, BugsUnderFaults,
                         ::testing::Values(BugShare{cut::InjectedBug::kNone, 0},
                                           BugShare{cut::InjectedBug::kNoTxCutId, 12},
                                           BugShare{cut::InjectedBug::kNoWrap, 12},
                                           BugShare{cut::InjectedBug::kEarlyFinish, 12},
                                           BugShare{cut::InjectedBug::kIgnoreRecovery, 8}),
                         [](const auto& p) {
                           std::string n = cut::InjectedBugName(p.param.bug);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
