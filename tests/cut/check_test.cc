// walcut cuts / check: verdicts on simulated clusters, on broken algorithms, on WALs
// damaged by hand (rewritten with valid checksums), and from summaries.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "libwal/wal_writer.h"
#include "sim/simulate.h"
#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

sim::SimConfig Config(const std::string& dir, uint32_t nodes, uint32_t backups, uint64_t seed) {
  sim::SimConfig c;
  c.out_dir = dir;
  c.nodes = nodes;
  c.backups = backups;
  c.partitions = 16;
  c.accounts = 100 + static_cast<uint32_t>(seed) * 13;
  c.txs = 2000;
  c.concurrency = 8 + static_cast<uint32_t>(seed % 5) * 6;
  c.cuts = 5;
  c.seed = seed;
  c.truth = true;
  c.start_delay_us = static_cast<double>(seed % 4) * 200;
  c.discovery_delay_us = 300 + static_cast<double>(seed % 3) * 1500;
  c.fifo = seed % 2 == 0;
  c.rollback_rate = seed % 3 == 0 ? 0.05 : 0;
  c.segment_size = 128 << 10;
  return c;
}

nlohmann::json Json(const std::vector<std::string>& args, int* code = nullptr) {
  auto r = RunCli(args);
  if (code) *code = r.code;
  return nlohmann::json::parse(r.out);
}

std::vector<std::string> Summaries(const std::string& dir, uint32_t nodes) {
  std::vector<std::string> files;
  for (uint32_t n = 0; n < nodes; ++n) {
    std::string f = fmt::format("{}/n{}.summary", dir, n);
    EXPECT_EQ(RunCli({"cuts", fmt::format("{}/node-{}", dir, n), "--summary", f}).code, 0);
    files.push_back(f);
  }
  return files;
}

class CheckSweep : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, uint64_t>> {};

TEST_P(CheckSweep, CompleteCutsPassAndSummariesAgree) {
  auto [nodes, backups, seed] = GetParam();
  TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(sim::Simulate(Config(c, nodes, backups, seed)).ok());
  int code = -1;
  auto check = Json({"check", "--json", c}, &code);
  EXPECT_EQ(code, 0) << check.dump(1);
  EXPECT_TRUE(check["ok"].get<bool>());
  // The initiator's verdicts match: complete cuts are consistent, failed ones are not.
  std::ifstream in(c + "/truth/cuts.json");
  auto truth = nlohmann::json::parse(in);
  auto cuts = Json({"cuts", "--json", c});
  ASSERT_EQ(cuts["cuts"].size(), truth["cuts"].size());
  for (const auto& t : truth["cuts"]) {
    for (const auto& k : cuts["cuts"]) {
      if (k["id"] != t["id"]) continue;
      EXPECT_EQ(k["status"] == "consistent", t["verdict"] == "complete") << k.dump();
    }
  }
  // Summaries written on each node give the same verdicts (with the cluster file, the
  // same membership).
  std::vector<std::string> args = {"check", "--json", "--cluster", c + "/cluster.json", "--summaries"};
  for (const auto& f : Summaries(c, nodes)) args.push_back(f);
  EXPECT_EQ(Json(args), check);
}

INSTANTIATE_TEST_SUITE_P(Clusters, CheckSweep,
                         ::testing::Combine(::testing::Values(3u, 4u), ::testing::Values(0u, 1u, 2u),
                                            ::testing::Values(uint64_t{1}, uint64_t{2}, uint64_t{3})));

// The catch rate of each deliberately broken algorithm, over 12 seeds: exact, as the
// simulator is deterministic (a seed gives the same run, on every compiler), so a change
// to the check or to the simulator that moves it shows here.
struct BugCase {
  cut::InjectedBug bug;
  int caught;
};

class CheckCatchesBugs : public ::testing::TestWithParam<BugCase> {};

TEST_P(CheckCatchesBugs, CatchRateIsTheRecordedOne) {
  const int kSeeds = 12;
  int caught = 0, summary_agree = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    TempDir dir;
    std::string c = dir.path() + "/c";
    sim::SimConfig cfg = Config(c, 3, 1, static_cast<uint64_t>(seed));
    cfg.bug = GetParam().bug;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    int code = -1;
    auto check = Json({"check", "--json", c}, &code);
    caught += code == 1;
    std::vector<std::string> args = {"check", "--json", "--cluster", c + "/cluster.json", "--summaries"};
    for (const auto& f : Summaries(c, 3)) args.push_back(f);
    summary_agree += Json(args) == check;
  }
  std::printf("[ share    ] %s: check caught %d of %d seeds\n", cut::InjectedBugName(GetParam().bug), caught, kSeeds);
  EXPECT_EQ(caught, GetParam().caught);
  EXPECT_EQ(summary_agree, kSeeds);
}

INSTANTIATE_TEST_SUITE_P(Bugs, CheckCatchesBugs,
                         ::testing::Values(BugCase{cut::InjectedBug::kNoTxCutId, 12},
                                           BugCase{cut::InjectedBug::kNoWrap, 12},
                                           BugCase{cut::InjectedBug::kEarlyFinish, 12}),
                         [](const auto& p) {
                           std::string n = cut::InjectedBugName(p.param.bug);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Hand-damaged WALs: each reported with the right kind, node and place.
class DamagedWal : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = dir_.path() + "/c";
    sim::SimConfig cfg = Config(c_, 3, 1, 4);
    cfg.start_delay_us = 400;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    ASSERT_EQ(RunCli({"check", "-q", c_}).code, 0);
  }
  nlohmann::json Check(int expect_code) {
    int code = -1;
    auto j = Json({"check", "--json", c_}, &code);
    EXPECT_EQ(code, expect_code) << j.dump(1);
    return j;
  }
  static bool Has(const nlohmann::json& check, const std::string& kind, const std::string& node) {
    for (const auto& c : check["cuts"]) {
      for (const auto& v : c["violations"]) {
        if (v["kind"] == kind && std::find(v["nodes"].begin(), v["nodes"].end(), node) != v["nodes"].end()) {
          return true;
        }
      }
    }
    return false;
  }
  TempDir dir_;
  std::string c_;
};

TEST_F(DamagedWal, TransactionMovedFromBeforeToAfterOnOneNode) {
  // Find a Finish record with a non-empty before set on some node, and move one entry.
  std::string victim;
  wal::TxId moved;
  for (int n = 0; n < 3 && victim.empty(); ++n) {
    std::string w = fmt::format("{}/node-{}/wal", c_, n);
    ASSERT_TRUE(testing_support::RewriteWal(w, [&](wal::AnyRecord& a) {
      if (victim.empty() && a.type == static_cast<uint8_t>(wal::RecordType::kCutFinish) &&
          !a.cut_finish.before.empty()) {
        moved = a.cut_finish.before.back();
        a.cut_finish.before.pop_back();
        a.cut_finish.after.push_back(moved);
        victim = fmt::format("node-{}", n);
      }
      return 1;
    }));
  }
  ASSERT_FALSE(victim.empty()) << "no before set to damage";
  auto j = Check(1);
  EXPECT_TRUE(Has(j, "side-mismatch", victim) || Has(j, "before-missing-on-participant", victim)) << j.dump(1);
  bool names_tx = false;
  for (const auto& c : j["cuts"]) {
    for (const auto& v : c["violations"]) names_tx |= v["tx"] == moved.ToString();
  }
  EXPECT_TRUE(names_tx);
}

// A transaction Before in one cut and listed after in the next one's Finish record on
// the same node: the increments are not nested there.
TEST_F(DamagedWal, BeforeOfOneCutListedAfterInTheNext) {
  // The first cut, on the first node, with a Before set: its first entry listed after in
  // the node's next Finish record.
  wal::TxId moved;
  std::string victim;
  int cut = -1;
  for (int n = 0; n < 3 && victim.empty(); ++n) {
    int finishes = 0;
    ASSERT_TRUE(testing_support::RewriteWal(fmt::format("{}/node-{}/wal", c_, n), [&](wal::AnyRecord& a) {
      if (a.type != static_cast<uint8_t>(wal::RecordType::kCutFinish)) return 1;
      if (moved.IsNull() && !a.cut_finish.before.empty()) {
        moved = a.cut_finish.before.front();
        cut = finishes + 1;
      } else if (finishes == cut) {
        a.cut_finish.after.push_back(moved);
      }
      ++finishes;
      return 1;
    }));
    if (!moved.IsNull()) victim = fmt::format("node-{}", n);
  }
  ASSERT_FALSE(victim.empty()) << "no cut with a before set";
  auto j = Check(1);
  ASSERT_GT(j["cuts"].size(), static_cast<size_t>(cut));
  const auto& next = j["cuts"][static_cast<size_t>(cut)];
  bool found = false;
  for (const auto& v : next["violations"]) {
    found |= v["kind"] == "not-nested" && v["tx"] == moved.ToString() && v["nodes"] == nlohmann::json::array({victim});
  }
  EXPECT_TRUE(found) << next.dump(1);
  EXPECT_EQ(next["status"], "inconsistent");
  // The cut before it is untouched.
  EXPECT_EQ(j["cuts"][static_cast<size_t>(cut - 1)]["status"], "consistent");
}

TEST_F(DamagedWal, FinishRecordRemoved) {
  bool dropped = false;
  ASSERT_TRUE(testing_support::RewriteWal(c_ + "/node-1/wal", [&](wal::AnyRecord& a) {
    if (!dropped && a.type == static_cast<uint8_t>(wal::RecordType::kCutFinish)) {
      dropped = true;
      return 0;
    }
    return 1;
  }));
  auto cuts = Json({"cuts", "--json", c_});
  EXPECT_EQ(cuts["cuts"][0]["status"], "inconsistent");
  EXPECT_NE(cuts["cuts"][0]["reason"].get<std::string>().find("node-1 lacks the Finish record"), std::string::npos);
  int code = -1;
  auto j = Json({"check", "--json", "--cut", cuts["cuts"][0]["id"].get<std::string>().substr(0, 8), c_}, &code);
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(Has(j, "missing-finish", "node-1"));
}

// A node's WAL that stops before its last cut's Finish record: that cut may still be
// running (nothing later was written anywhere), so it is incomplete; the same node's WAL
// stopping before an earlier cut's Finish leaves that cut inconsistent (later cuts
// started), and, as no Start of a later cut is on that node, the later cuts are
// incomplete there.
TEST_F(DamagedWal, AWalEndingBeforeTheLastFinishIsIncompleteBeforeAnEarlierOneInconsistent) {
  auto cuts = Json({"cuts", "--json", c_});
  ASSERT_GE(cuts["cuts"].size(), 3u);
  const size_t last = cuts["cuts"].size() - 1;
  auto finish_of = [&](size_t k) {
    for (const auto& n : cuts["cuts"][k]["nodes"]) {
      if (n["node"] == "node-2") return *wal::Pointer::Parse(n["finish"].get<std::string>());
    }
    return wal::Pointer{};
  };
  auto truncate_at = [&](const wal::Pointer& p) {
    std::string seg = fmt::format("{}/node-2/wal/{:016}.wal", c_, p.segment);
    ASSERT_TRUE(std::filesystem::exists(seg)) << seg;
    std::filesystem::resize_file(seg, p.offset);
    for (uint64_t s = p.segment + 1; std::filesystem::exists(fmt::format("{}/node-2/wal/{:016}.wal", c_, s)); ++s) {
      std::filesystem::remove(fmt::format("{}/node-2/wal/{:016}.wal", c_, s));
    }
  };
  truncate_at(finish_of(last));
  auto after_last = Json({"cuts", "--json", c_});
  EXPECT_EQ(after_last["cuts"][last]["status"], "incomplete") << after_last["cuts"][last].dump();
  for (size_t k = 0; k < last; ++k) EXPECT_EQ(after_last["cuts"][k]["status"], "consistent") << k;
  truncate_at(finish_of(1));
  auto after_first = Json({"cuts", "--json", c_});
  EXPECT_EQ(after_first["cuts"][1]["status"], "inconsistent") << after_first["cuts"][1].dump();
  EXPECT_EQ(after_first["cuts"][0]["status"], "consistent");
}

// A Finish record of the first cut written again inside the third cut's window (a
// PREPARED record's place is taken): the old cut is not reported twice, and the stray
// record is named on the cut that was open, with the old cut's id.
TEST_F(DamagedWal, AStrayFinishOfAnOldCutIsReportedOnceOnTheOpenCut) {
  int starts = 0;
  bool saved = false, placed = false;
  wal::CutFinishRecord first;
  ASSERT_TRUE(testing_support::RewriteWal(c_ + "/node-1/wal", [&](wal::AnyRecord& a) {
    if (a.type == static_cast<uint8_t>(wal::RecordType::kCutStart)) ++starts;
    if (a.type == static_cast<uint8_t>(wal::RecordType::kCutFinish) && !saved) {
      first = a.cut_finish;
      saved = true;
    } else if (starts == 3 && !placed && a.type == static_cast<uint8_t>(wal::RecordType::kTx) &&
               a.tx.state == wal::TxState::kPrepared) {
      a.type = static_cast<uint8_t>(wal::RecordType::kCutFinish);
      a.cut_finish = first;
      placed = true;
    }
    return 1;
  }));
  ASSERT_TRUE(placed);
  auto j = Check(1);
  std::set<std::string> ids;
  for (const auto& c : j["cuts"])
    EXPECT_TRUE(ids.insert(c["id"].get<std::string>()).second) << "reported twice: " << c["id"];
  EXPECT_EQ(j["cuts"][0]["status"], "consistent");
  EXPECT_NE(j["cuts"][2]["status"], "consistent");
  bool named = false;
  for (const auto& v : j["cuts"][2]["violations"]) {
    named |= v["kind"] == "finish-after-next-start" &&
             v["detail"].get<std::string>().find(first.cut_id.ToString()) != std::string::npos;
  }
  EXPECT_TRUE(named) << j["cuts"][2].dump(1);
}

TEST_F(DamagedWal, SetEntryDuplicated) {
  bool done = false;
  ASSERT_TRUE(testing_support::RewriteWal(c_ + "/node-2/wal", [&](wal::AnyRecord& a) {
    if (!done && a.type == static_cast<uint8_t>(wal::RecordType::kCutFinish) && !a.cut_finish.after.empty()) {
      a.cut_finish.after.push_back(a.cut_finish.after[0]);
      done = true;
    }
    return 1;
  }));
  ASSERT_TRUE(done);
  EXPECT_TRUE(Has(Check(1), "duplicate-entry", "node-2"));
}

TEST_F(DamagedWal, DataRecordCountersSwapped) {
  // Two writes of one key on one copy, the earlier (Before the first cut) given the
  // later one's counter and the other way round.
  std::string key;
  uint32_t partition = 0;
  uint64_t first_counter = 0, second_counter = 0;
  std::vector<std::pair<wal::TxId, uint64_t>> writes;
  {
    auto reader = wal::WalReader::OpenDirectory(c_ + "/node-0/wal", {}, nullptr);
    const wal::Record* r = nullptr;
    bool after_first_finish = false;
    std::map<std::pair<uint32_t, std::string>, uint64_t> before_counter;
    while ((*reader)->Next(&r) && key.empty()) {
      if (r->type == static_cast<uint8_t>(wal::RecordType::kCutFinish)) after_first_finish = true;
      if (r->type != static_cast<uint8_t>(wal::RecordType::kData)) continue;
      for (const auto& e : r->decoded.data.entries) {
        if (e.xid.IsNull()) continue;
        auto k = std::make_pair(e.partition, std::string(e.key));
        if (!after_first_finish) {
          before_counter[k] = e.counter;
        } else if (before_counter.count(k)) {
          key = k.second;
          partition = k.first;
          first_counter = before_counter[k];
          second_counter = e.counter;
          break;
        }
      }
    }
  }
  ASSERT_FALSE(key.empty());
  ASSERT_TRUE(testing_support::RewriteWal(c_ + "/node-0/wal", [&](wal::AnyRecord& a) {
    if (a.type != static_cast<uint8_t>(wal::RecordType::kData)) return 1;
    for (auto& e : a.data.entries) {
      if (e.partition != partition || e.key != key) continue;
      if (e.counter == first_counter)
        e.counter = second_counter;
      else if (e.counter == second_counter)
        e.counter = first_counter;
    }
    return 1;
  }));
  EXPECT_TRUE(Has(Check(1), "key-order", "node-0"));
}

// One Before transaction that wrote six keys above the counters an After transaction
// wrote them with: six key-order violations at the Before commit, in key order (cache,
// partition, key hash), the same order however the window's tables were sized.
TEST(CheckKeyOrder, ViolationsOfOneCommitComeInKeyOrder) {
  TempDir dir;
  const std::string wal_dir = dir.path() + "/node-0/wal";
  fs::create_directories(dir.path() + "/node-0");
  auto w = wal::WalWriter::Create(wal_dir, wal::Uuid{1, 1}, 0, wal::WriterOptions{});
  ASSERT_TRUE(w.ok());
  wal::WalWriter& writer = *w.value();
  uint64_t ts = 1000;
  ASSERT_TRUE(writer.Append(wal::ClusterSnapshotRecord{ts++, "base"}).ok());
  const wal::Uuid cut_id{7, 7};
  ASSERT_TRUE(writer.Append(wal::CutStartRecord{cut_id, 1, ts++}).ok());
  std::vector<std::string> keys;
  for (int i = 0; i < 6; ++i) keys.push_back(fmt::format("key-{}", i));
  auto write_and_commit = [&](const wal::TxId& x, uint64_t base) {
    wal::DataRecord d;
    d.timestamp = ts++;
    for (size_t i = 0; i < keys.size(); ++i) {
      wal::DataEntry e;
      e.cache_id = 1;
      e.counter = base + i;
      e.xid = x;
      e.write_version = x;
      e.key = keys[i];
      e.value = "v";
      d.entries.push_back(e);
    }
    ASSERT_TRUE(writer.Append(d).ok());
    wal::TxRecord t;
    t.state = wal::TxState::kCommitted;
    t.xid = x;
    t.timestamp = ts++;
    t.participants.push_back(wal::Participant{0, {}});
    ASSERT_TRUE(writer.Append(t).ok());
  };
  const wal::TxId after_tx{1, 0, 2}, before_tx{1, 0, 1};
  write_and_commit(after_tx, 1);     // between Start and Finish, not listed: After
  write_and_commit(before_tx, 100);  // listed in before: Before
  wal::CutFinishRecord f;
  f.cut_id = cut_id;
  f.timestamp = ts++;
  f.before = {before_tx};
  ASSERT_TRUE(writer.Append(f).ok());
  ASSERT_TRUE(writer.Close().ok());

  int code = -1;
  auto j = Json({"check", "--json", wal_dir}, &code);
  EXPECT_EQ(code, 1);
  ASSERT_EQ(j["cuts"].size(), 1u);
  std::vector<std::string> hashes;
  for (const auto& v : j["cuts"][0]["violations"]) {
    ASSERT_EQ(v["kind"], "key-order") << v.dump();
    EXPECT_EQ(v["tx"], before_tx.ToString());
    const std::string detail = v["detail"];
    const size_t at = detail.find("xxh3:");
    ASSERT_NE(at, std::string::npos) << detail;
    hashes.push_back(detail.substr(at + 5, 16));
  }
  ASSERT_EQ(hashes.size(), 6u);
  EXPECT_TRUE(std::is_sorted(hashes.begin(), hashes.end())) << j["cuts"][0].dump(1);
}

TEST_F(DamagedWal, CorruptionInTheRangeMakesTheCutUnverifiable) {
  auto files = wal::ListSegments(c_ + "/node-1/wal");
  ASSERT_GE(files->size(), 2u);
  fs::remove((*files)[1].path);  // a missing segment
  auto j = Check(1);
  bool unverifiable = false;
  for (const auto& c : j["cuts"]) unverifiable |= c["status"] == "unverifiable";
  EXPECT_TRUE(unverifiable) << j.dump(1);
}

TEST(CutsCli, SummaryWithJsonPrintsOneObject) {
  TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(sim::Simulate(Config(c, 3, 1, 2)).ok());
  int code = -1;
  auto j = Json({"cuts", c + "/node-1", "--summary", dir.path() + "/n1.summary", "--json"}, &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["node"], "node-1");
  EXPECT_EQ(j["summary"], dir.path() + "/n1.summary");
  EXPECT_EQ(j["cuts"], 5);
  EXPECT_GT(j["records"].get<int>(), 1000);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/n1.summary"));
}

TEST(CheckCli, UsageErrors) {
  EXPECT_EQ(RunCli({"check"}).code, 2);
  EXPECT_EQ(RunCli({"check", "x", "--summaries", "y"}).code, 2);
  EXPECT_EQ(RunCli({"check", "/nonexistent"}).code, 3);
  TempDir dir;
  ASSERT_TRUE(sim::Simulate(Config(dir.path() + "/c", 3, 1, 1)).ok());
  EXPECT_EQ(RunCli({"check", "--cut", "zzzz", dir.path() + "/c"}).code, 2);
  EXPECT_EQ(RunCli({"check", "--cut", "", dir.path() + "/c"}).code, 2);
}

}  // namespace
