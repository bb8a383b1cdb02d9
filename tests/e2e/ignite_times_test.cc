// Apache Ignite's increments have times: each Start or Finish record takes the latest time of
// the records before it on its node (Ignite's cut records carry none), a cut's started time is
// the earliest over its nodes and its finished time the latest; cuts prints them in ISO 8601
// and restore --time chooses by them. Held here to the times dump reads from the records.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "libwal/ids.h"
#include "tests/support/run_cli.h"

namespace {

using testing_support::RunCli;

const std::string kNodes = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/rebalance/nodes";

struct Stamped {
  wal::Pointer at;
  uint64_t ms = 0;
};

// Every record of a node's WAL that has a time, in WAL order.
std::vector<Stamped> TimesOf(const std::string& node) {
  auto r = RunCli({"dump", "--json", kNodes + "/" + node + "/work"});
  std::vector<Stamped> out;
  size_t at = 0;
  while (at < r.out.size()) {
    size_t end = r.out.find('\n', at);
    if (end == std::string::npos) end = r.out.size();
    auto j = nlohmann::json::parse(r.out.substr(at, end - at));
    at = end + 1;
    if (j.contains("timestamp") && j["timestamp"].get<uint64_t>() != 0) {
      out.push_back(
          {wal::Pointer{j["segment"].get<uint64_t>(), j["offset"].get<uint32_t>()}, j["timestamp"].get<uint64_t>()});
    }
  }
  return out;
}

// The latest time of a record before `p`.
uint64_t LatestBefore(const std::vector<Stamped>& times, const wal::Pointer& p) {
  uint64_t ms = 0;
  for (const auto& t : times) {
    if (t.at < p) ms = std::max(ms, t.ms);
  }
  return ms;
}

wal::Pointer ParsePointer(const std::string& s) {
  const size_t colon = s.find(':');
  return {std::stoull(s.substr(0, colon)), static_cast<uint32_t>(std::stoul(s.substr(colon + 1)))};
}

nlohmann::json Cuts() {
  auto r = RunCli({"cuts", "--json", kNodes});
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(IgniteTimes, EachCutStartedAndFinishedWhenItsRecordsSay) {
  std::map<std::string, std::vector<Stamped>> times;
  for (const char* node : {"server-0", "server-1", "server-2"}) {
    times[std::string("server_") + node[7]] = TimesOf(node);
  }
  const auto cuts = Cuts()["cuts"];
  size_t checked = 0;
  uint64_t previous_finish = 0;
  for (const auto& c : cuts) {
    uint64_t start = UINT64_MAX, finish = 0;
    for (const auto& n : c["nodes"]) {
      const auto& t = times.at(n["node"].get<std::string>());
      if (n["start"].is_string()) start = std::min(start, LatestBefore(t, ParsePointer(n["start"])));
      if (n["finish"].is_string()) finish = std::max(finish, LatestBefore(t, ParsePointer(n["finish"])));
    }
    SCOPED_TRACE(c["id"].get<std::string>());
    EXPECT_EQ(c["start_ts"].get<uint64_t>(), start * 1'000'000);
    EXPECT_EQ(c["finish_ts"].get<uint64_t>(), finish * 1'000'000);
    if (c["status"] == "consistent") {
      EXPECT_LE(c["start_ts"].get<uint64_t>(), c["finish_ts"].get<uint64_t>());
      EXPECT_LE(previous_finish, c["start_ts"].get<uint64_t>());
      EXPECT_EQ(c["window"]["to_ts"], c["finish_ts"]);
      previous_finish = c["finish_ts"].get<uint64_t>();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);
}

TEST(IgniteTimes, CutsPrintsThemInIso8601AndNoZeros) {
  auto r = RunCli({"cuts", kNodes});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("0.000000000"), std::string::npos) << r.out;
  const auto cuts = Cuts()["cuts"];
  const uint64_t ms = cuts[0]["finish_ts"].get<uint64_t>() / 1'000'000;
  // 2026-12-06T09:53:49.599Z for the fixture's first increment.
  const std::string iso = fmt::format("finished 2026-12-06T09:53:{:02}.{:03}Z", ms / 1000 % 60, ms % 1000);
  EXPECT_NE(r.out.find(iso), std::string::npos) << r.out;
}

TEST(IgniteTimes, RestoreTimeChoosesTheLatestCutFinishedByThen) {
  const auto cuts = Cuts()["cuts"];
  // Increment 1 of snap2: at its finish time it is chosen, a millisecond before it the cut before.
  const nlohmann::json* inc1 = nullptr;
  for (const auto& c : cuts) {
    if (c["base"] == "snap2" && c["increment"] == 1) inc1 = &c;
  }
  ASSERT_NE(inc1, nullptr);
  const uint64_t ms = (*inc1)["finish_ts"].get<uint64_t>() / 1'000'000;
  auto at = RunCli({"restore", kNodes, "--time", fmt::format("{}.{:03}", ms / 1000, ms % 1000), "--dry-run"});
  ASSERT_EQ(at.code, 0) << at.err;
  EXPECT_NE(at.out.find("restore plan: cut " + (*inc1)["id"].get<std::string>()), std::string::npos) << at.out;
  auto before =
      RunCli({"restore", kNodes, "--time", fmt::format("{}.{:03}", (ms - 1) / 1000, (ms - 1) % 1000), "--dry-run"});
  ASSERT_EQ(before.code, 0) << before.err;
  EXPECT_NE(before.out.find("increment 2 of \"snap\""), std::string::npos) << before.out;
  auto long_before = RunCli({"restore", kNodes, "--time", "1000000000", "--dry-run"});
  EXPECT_EQ(long_before.code, 1);
  EXPECT_NE(long_before.err.find("no consistent cut finished at or before 2001-09-09T01:46:40"), std::string::npos)
      << long_before.err;
}

}  // namespace
