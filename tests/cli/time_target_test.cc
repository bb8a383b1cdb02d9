// Times on the command line: what each form means (seconds, ISO 8601 with offsets, back
// from the latest), what is refused, and the commands that take them: `restore --time`
// chooses the latest consistent cut finished at or before the time and says which, and
// `dump --since/--until` keeps the records of that span.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "libwal/wal_reader.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tools/record_format.h"
#include "tools/time_target.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;
using tools::ParseTimeTarget;
using tools::TimeTarget;

uint64_t At(const std::string& text) {
  TimeTarget t;
  std::string why;
  EXPECT_TRUE(ParseTimeTarget(text, &t, &why)) << text << ": " << why;
  EXPECT_FALSE(t.relative) << text;
  return t.at;
}

uint64_t Back(const std::string& text) {
  TimeTarget t;
  std::string why;
  EXPECT_TRUE(ParseTimeTarget(text, &t, &why)) << text << ": " << why;
  EXPECT_TRUE(t.relative) << text;
  return t.back;
}

TEST(TimeTarget, EachFormMeansWhatItSays) {
  constexpr uint64_t kS = 1000000000ULL;
  EXPECT_EQ(At("0"), 0u);
  EXPECT_EQ(At("0.5"), kS / 2);
  EXPECT_EQ(At("12.000000001"), 12 * kS + 1);
  EXPECT_EQ(At("1970-01-01"), 0u);
  EXPECT_EQ(At("1970-01-01T00:00:00.4Z"), 4 * kS / 10);
  EXPECT_EQ(At("1970-01-02 00:00"), 86400 * kS);
  // 2026-12-04T10:00:00Z is 1796378400 s after the epoch; offsets are east of UTC.
  EXPECT_EQ(At("2026-12-04T10:00:00Z"), 1796378400 * kS);
  EXPECT_EQ(At("2026-12-04T11:30:00+01:30"), 1796378400 * kS);
  EXPECT_EQ(At("2026-12-04T05:00:00-05:00"), 1796378400 * kS);
  EXPECT_EQ(At("2000-02-29T00:00:00Z"), 951782400 * kS);  // a leap day
  EXPECT_EQ(At("2024-02-29"), 1709164800 * kS);           // another
  EXPECT_EQ(At("2026-04-30"), 1777507200 * kS);
  EXPECT_EQ(At("2554-07-21T00:00:00Z"), 18446659200 * kS);  // near the last time 64-bit nanoseconds hold
  EXPECT_EQ(Back("-3h"), 10800 * kS);
  EXPECT_EQ(Back("-1h30m"), 5400 * kS);
  EXPECT_EQ(Back("-500ms"), kS / 2);
  EXPECT_EQ(Back("-2d"), 172800 * kS);
  EXPECT_EQ(tools::ResolveTime(TimeTarget{true, 0, 5 * kS, "-5s"}, 7 * kS), 2 * kS);
  EXPECT_EQ(tools::ResolveTime(TimeTarget{true, 0, 9 * kS, "-9s"}, 7 * kS), 0u);
  EXPECT_EQ(tools::FormatIsoTime(1796378400 * kS + 5), "2026-12-04T10:00:00.000000005Z");
  EXPECT_EQ(tools::FormatIsoTime(0), "1970-01-01T00:00:00.000000000Z");
  // A record's time, its date and time of day formatted once per second: in milliseconds when
  // whole, else in nanoseconds, and right across a second's and a day's turn.
  for (const uint64_t ns :
       {1796378400 * kS + 5, 1796378400 * kS + 7000000, 1796378400 * kS + 7000000 + 1, 1796378399 * kS + 999999999,
        1796428799 * kS + 999000000, 1796428800 * kS, 1796378400 * kS + 5}) {
    fmt::memory_buffer out;
    tools::AppendTime(&out, ns);
    std::string want = tools::FormatIsoTime(ns);
    if (ns % 1000000 == 0) want.erase(want.size() - 7, 6);
    EXPECT_EQ(std::string(out.data(), out.size()), want) << ns;
  }
  for (const char* bad : {"",
                          "-",
                          "-3",
                          "-3x",
                          "-0.5s",
                          "1e3",
                          "0x10",
                          "+3",
                          "abc",
                          "1.",
                          "1.0000000001",
                          "1969-12-31T23:59:59Z",
                          "1970-01-01T00:00:00+01:00",
                          "2026-13-01",
                          "2026-12-32",
                          "2026-12-04T24:00",
                          "2026-12-04T10:00:00Q",
                          "2026-12-04T10",
                          "99999999999999999999",
                          "2600-01-01",
                          "9999-12-31T23:59:59Z",
                          "2026-02-30",
                          "2026-02-29",
                          "1900-02-29",
                          "2026-04-31T00:00:00Z"}) {
    TimeTarget t;
    std::string why;
    EXPECT_FALSE(ParseTimeTarget(bad, &t, &why)) << "accepted \"" << bad << "\"";
    EXPECT_FALSE(why.empty()) << bad;
  }
}

class TimeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = dir_.path() + "/c";
    ASSERT_EQ(RunCli({"simulate", "-q", "-o", c_, "--txs", "6000", "--cuts", "3", "--seed", "7"}).code, 0);
    const auto listing = nlohmann::json::parse(RunCli({"cuts", "--json", c_}).out);
    for (const auto& c : listing["cuts"]) {
      ASSERT_EQ(c["status"], "consistent");
      ids_.push_back(c["id"]);
      finish_.push_back(c["finish_ts"]);
    }
    ASSERT_EQ(ids_.size(), 3u);
  }
  std::string Chosen(const std::vector<std::string>& extra, int* code = nullptr) {
    std::vector<std::string> args = {"restore", "--dry-run", "--json", c_};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunCli(args);
    if (code != nullptr) *code = r.code;
    if (r.code != 0) return "";
    return nlohmann::json::parse(r.out)["cut"];
  }

  TempDir dir_;
  std::string c_;
  std::vector<std::string> ids_;
  std::vector<uint64_t> finish_;
};

TEST_F(TimeCli, RestoreTimeTakesTheLatestCutFinishedAtOrBeforeItInEveryForm) {
  const uint64_t between = (finish_[0] + finish_[1]) / 2;
  const std::string seconds = fmt::format("{}.{:09}", between / 1000000000, between % 1000000000);
  EXPECT_EQ(Chosen({"--time", seconds}), ids_[0]);
  EXPECT_EQ(Chosen({"--time", tools::FormatIsoTime(between)}), ids_[0]);
  EXPECT_EQ(Chosen({"--time", tools::FormatIsoTime(finish_[1])}), ids_[1]) << "at the finish itself";
  EXPECT_EQ(Chosen({"--time", tools::FormatIsoTime(finish_[1] - 1)}), ids_[0]);
  EXPECT_EQ(Chosen({"--time", "2100-01-01T00:00:00Z"}), ids_[2]);
  // Back from the latest time the WALs hold: far enough back, none; a few ns back, the last.
  int code = 0;
  EXPECT_EQ(Chosen({"--time", "-1d"}, &code), "");
  EXPECT_EQ(code, 1);
  EXPECT_EQ(Chosen({"--time", "-1ms"}), ids_[2]);
  // The text says which cut the time chose, and when it finished.
  auto r = RunCli({"restore", "--dry-run", c_, "--time", tools::FormatIsoTime(between)});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("the latest consistent cut finished at or before it is " + ids_[0]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("finished at " + tools::FormatIsoTime(finish_[0])), std::string::npos) << r.out;
  // --snapshot names the base.
  EXPECT_EQ(Chosen({"--snapshot", "base", "--increment", "2"}), ids_[1]);
  EXPECT_EQ(Chosen({"--snapshot", "base", "--latest"}), ids_[2]);
  EXPECT_EQ(Chosen({"--snapshot", "other", "--latest"}, &code), "");
  EXPECT_EQ(code, 1);
  EXPECT_EQ(RunCli({"restore", "--dry-run", c_, "--snapshot", "base"}).code, 2);
  EXPECT_EQ(RunCli({"restore", "--dry-run", c_, "--snapshot", "base", "--cut", ids_[0]}).code, 2);
  EXPECT_EQ(RunCli({"restore", "--dry-run", c_, "--time", "yesterday"}).code, 2);
}

TEST_F(TimeCli, DumpSinceUntilKeepTheRecordsOfTheSpan) {
  const uint64_t since = finish_[0], until = (finish_[1] + finish_[2]) / 2;
  // Independently: each record's time, its own or the one before it.
  size_t want = 0;
  auto reader = wal::WalReader::OpenDirectory(c_ + "/node-1/wal", {}, nullptr);
  ASSERT_TRUE(reader.ok());
  const wal::Record* r = nullptr;
  uint64_t t = 0;
  while ((*reader)->Next(&r)) {
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kTx: t = a.tx.timestamp; break;
      case wal::RecordType::kData: t = a.data.timestamp; break;
      case wal::RecordType::kClusterSnapshot: t = a.snapshot.timestamp; break;
      case wal::RecordType::kCutStart: t = a.cut_start.timestamp; break;
      case wal::RecordType::kCutFinish: t = a.cut_finish.timestamp; break;
      default: break;
    }
    want += t >= since && t <= until;
  }
  ASSERT_GT(want, 100u);
  auto d = RunCli({"dump", "--json", c_ + "/node-1", "--since", tools::FormatIsoTime(since), "--until",
                   fmt::format("{}.{:09}", until / 1000000000, until % 1000000000)});
  ASSERT_EQ(d.code, 0) << d.err;
  size_t lines = 0;
  for (size_t p = 0; (p = d.out.find('\n', p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, want);
  EXPECT_EQ(RunCli({"dump", c_, "--since", "-3h"}).code, 2);
  EXPECT_EQ(RunCli({"dump", c_, "--until", "tomorrow"}).code, 2);
}

}  // namespace
