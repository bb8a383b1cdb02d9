// Protocol scenarios: one transaction, one cut, and one message type held back while
// the cut starts. The cut's start time sweeps across the hold, so the cut meets the
// transaction at every step of its protocol; every run must give a complete cut with the
// transaction on the same side on every node, and across the sweep both sides occur.
// Shapes 3 servers/0 backups, 2/1 and 3/2; near node the initiator, the last server or a
// client; one key, two keys on one primary, two keys on two primaries (1PC and 2PC).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "sim/simulate.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wal_sides.h"

namespace {

using testing_support::TempDir;

constexpr uint32_t kScenarioPartitions = 4;
constexpr uint32_t kScenarioAccounts = 16;

enum class Near { kInitiator, kLastServer, kClient };
enum class Keys { kOne, kTwoOnePrimary, kTwoPrimaries };

struct Scenario {
  uint32_t nodes, backups;
  Near near;
  Keys keys;
};

std::string Name(const ::testing::TestParamInfo<Scenario>& p) {
  const Scenario& s = p.param;
  const char* near[] = {"initiator", "lastserver", "client"};
  const char* keys[] = {"onekey", "twokeys_oneprimary", "twokeys_twoprimaries"};
  return fmt::format("n{}b{}_near_{}_{}", s.nodes, s.backups, near[static_cast<int>(s.near)],
                     keys[static_cast<int>(s.keys)]);
}

sim::SimConfig Base(const std::string& dir, const Scenario& s) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.nodes = s.nodes;
  c.backups = s.backups;
  c.clients = 1;
  c.partitions = kScenarioPartitions;
  c.accounts = kScenarioAccounts;
  c.txs = 1;
  c.concurrency = 1;
  c.cuts = 1;
  c.truth = true;
  c.constant_delays = true;
  c.delay_min_us = 50;
  c.delay_mean_us = 0;
  c.discovery_delay_us = 30;
  c.start_delay_us = 20;
  c.segment_size = 64 << 10;
  c.fixed_near = s.near == Near::kInitiator    ? 0
                 : s.near == Near::kLastServer ? static_cast<int32_t>(s.nodes - 1)
                                               : static_cast<int32_t>(s.nodes);
  return c;
}

// The accounts that give the scenario's placement, from the cluster's own assignment.
std::vector<uint32_t> PickAccounts(const Scenario& s) {
  TempDir dir;
  sim::SimConfig c = Base(dir.path(), s);
  c.txs = 0;
  EXPECT_TRUE(sim::Simulate(c).ok());
  std::ifstream in(dir.path() + "/cluster.json");
  auto doc = nlohmann::json::parse(in);
  auto assignment = doc["topology_versions"][0]["assignment"];
  auto primary = [&](uint32_t a) {
    std::string key = fmt::format("acct-{}", a);
    uint64_t p = XXH3_64bits(key.data(), key.size()) % kScenarioPartitions;
    return std::make_pair(assignment[p][0].get<std::string>(), p);
  };
  for (uint32_t a = 0; a < kScenarioAccounts; ++a) {
    if (s.keys == Keys::kOne) return {a};
    for (uint32_t b = a + 1; b < kScenarioAccounts; ++b) {
      auto [pa, parta] = primary(a);
      auto [pb, partb] = primary(b);
      if (s.keys == Keys::kTwoOnePrimary && pa == pb && parta == partb) return {a, b};
      if (s.keys == Keys::kTwoPrimaries && pa != pb) return {a, b};
    }
  }
  return {};
}

class ProtocolScenario : public ::testing::TestWithParam<Scenario> {};

TEST_P(ProtocolScenario, EveryHeldMessageAtEveryCutStartGivesAConsistentCut) {
  const Scenario s = GetParam();
  const std::vector<uint32_t> accounts = PickAccounts(s);
  ASSERT_FALSE(accounts.empty()) << "no accounts with this placement";
  const std::vector<std::string> holds = {
      "NearPrepareRequest", "NearPrepareResponse", "DhtPrepareRequest", "DhtPrepareResponse",
      "NearFinishRequest",  "NearFinishResponse",  "DhtFinishRequest",  "discovery"};
  for (const auto& hold : holds) {
    std::set<bool> sides;
    for (double at = 0; at <= 2400; at += 150) {
      TempDir dir;
      sim::SimConfig c = Base(dir.path(), s);
      c.fixed_accounts = accounts;
      c.cut_at_us = {at};
      if (hold == "discovery") {
        // node-1 hears of the cut late: it can only start on a wrapped message.
        c.discovery_delay_by_node_us[1] = 2500;
      } else {
        sim::MsgType t;
        ASSERT_TRUE(sim::ParseMsgType(hold, &t));
        c.delay_mean_by_type_us[t] = 1500;
      }
      auto summary = sim::Simulate(c);
      ASSERT_TRUE(summary.ok()) << summary.status().ToString();
      ASSERT_EQ(summary->txs_committed, 1u);
      ASSERT_EQ(summary->cuts_consistent, 1u) << hold << " at " << at;
      std::ifstream in(dir.path() + "/truth/cuts.json");
      auto id = *wal::Uuid::Parse(nlohmann::json::parse(in)["cuts"][0]["id"].get<std::string>());
      std::optional<bool> side;
      for (uint32_t n = 0; n < s.nodes; ++n) {
        auto w = testing_support::ReadNodeWal(fmt::format("{}/node-{}/wal", dir.path(), n));
        ASSERT_EQ(w.errors, 0u);
        ASSERT_TRUE(w.cuts.count(id) && w.cuts[id].has_start && w.cuts[id].has_finish)
            << "node-" << n << " lacks a record; " << hold << " at " << at;
        for (const auto& [xid, ptr] : w.commits) {
          bool before = w.Side(id, xid, ptr);
          if (side) {
            ASSERT_EQ(*side, before) << "node-" << n << " disagrees; held " << hold << ", cut at " << at << "us";
          }
          side = before;
        }
      }
      ASSERT_TRUE(side.has_value());
      sides.insert(*side);
    }
    EXPECT_EQ(sides.size(), 2u) << "held " << hold << ": the sweep never put the transaction on both sides";
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, ProtocolScenario, ::testing::ValuesIn([] {
                           std::vector<Scenario> v;
                           for (auto [n, b] : std::vector<std::pair<uint32_t, uint32_t>>{{3, 0}, {2, 1}, {3, 2}}) {
                             for (Near near : {Near::kInitiator, Near::kLastServer, Near::kClient}) {
                               for (Keys k : {Keys::kOne, Keys::kTwoOnePrimary, Keys::kTwoPrimaries}) {
                                 v.push_back({n, b, near, k});
                               }
                             }
                           }
                           return v;
                         }()),
                         Name);

}  // namespace
