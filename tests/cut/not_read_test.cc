// Never "ok" about what was not read: a baseline node with no readable WAL, a WAL of
// another node, a WAL that does not reach back to the base snapshot or that lost its
// last records, any read error, and impossible shapes of the cut records. Each case
// ends with a non-zero exit and the node and reason named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/segment_file.h"
#include "sim/simulate.h"
#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

class NotRead : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = dir_.path() + "/c";
    sim::SimConfig cfg;
    cfg.out_dir = c_;
    cfg.nodes = 3;
    cfg.backups = 0;
    cfg.txs = 2000;
    cfg.cuts = 3;
    cfg.seed = 4;
    cfg.segment_size = 64 << 10;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    ASSERT_EQ(RunCli({"check", "-q", c_}).code, 0);
  }

  std::string Wal(int node) const { return fmt::format("{}/node-{}/wal", c_, node); }

  // `check --json`: the exit status must be 1; every cut must be unverifiable on `node`
  // with `kind`, and the node must be among the problems when `problem` is set.
  nlohmann::json ExpectUnverifiable(const std::string& node, const std::string& kind, const std::string& problem) {
    auto r = RunCli({"check", "--json", c_});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["ok"].get<bool>());
    EXPECT_EQ(j["cuts"].size(), 3u);
    for (const auto& c : j["cuts"]) {
      EXPECT_EQ(c["status"], "unverifiable") << c.dump();
      bool named = false;
      for (const auto& v : c["violations"]) named |= v["kind"] == kind && v["nodes"][0] == node;
      EXPECT_TRUE(named) << c.dump();
    }
    if (!problem.empty()) {
      bool listed = false;
      for (const auto& p : j["problems"]) listed |= p["node"] == node && p["kind"] == problem;
      EXPECT_TRUE(listed) << j["problems"].dump();
      EXPECT_NE(r.err.find(node + ": " + problem), std::string::npos) << r.err;
    }
    // Nothing is restored from it.
    auto restore = RunCli({"restore", c_, "--latest", "-o", dir_.path() + "/out"});
    EXPECT_EQ(restore.code, 1) << restore.err;
    EXPECT_FALSE(fs::exists(dir_.path() + "/out"));
    return j;
  }

  TempDir dir_;
  std::string c_;
};

TEST_F(NotRead, ANodeWithNoSegmentIsUnreadable) {
  for (const auto& e : fs::directory_iterator(Wal(1))) fs::remove(e.path());
  auto j = ExpectUnverifiable("node-1", "unreadable-wal", "unreadable-wal");
  EXPECT_NE(j["problems"][0]["detail"].get<std::string>().find("holds no WAL segment"), std::string::npos);
}

TEST_F(NotRead, ANodeDirectoryThatIsGoneIsUnreadable) {
  fs::remove_all(c_ + "/node-1");
  ExpectUnverifiable("node-1", "unreadable-wal", "unreadable-wal");
}

TEST_F(NotRead, AnEmptySegmentIsUnreadable) {
  for (const auto& e : fs::directory_iterator(Wal(1))) fs::remove(e.path());
  std::ofstream{Wal(1) + "/0000000000000000.wal"}.close();  // an empty segment file
  ExpectUnverifiable("node-1", "unreadable-wal", "unreadable-wal");
}

TEST_F(NotRead, ASegmentThatCannotBeReadIsUnreadable) {
  for (const auto& e : fs::directory_iterator(Wal(1))) fs::remove(e.path());
  fs::create_directory(Wal(1) + "/0000000000000000.wal");  // named like one, not a file
  ExpectUnverifiable("node-1", "unreadable-wal", "unreadable-wal");
}

TEST_F(NotRead, ASegmentOfAnUnknownFormatVersionIsUnreadable) {
  auto files = wal::ListSegments(Wal(1));
  ASSERT_TRUE(files.ok());
  for (size_t i = 1; i < files->size(); ++i) fs::remove((*files)[i].path);
  // Version 2 in the header, its checksum made right again.
  std::string bytes = testing_support::ReadFile((*files)[0].path);
  char* header = bytes.data();
  wal::EncodeFixed32(header + wal::kFrameHeaderSize + 8, 2);
  const size_t body = wal::kFrameHeaderSize + wal::kHeaderPayloadSize;
  wal::EncodeFixed64(header + body, wal::FrameChecksum(header, body, wal::Pointer{0, 0}));
  std::ofstream((*files)[0].path, std::ios::binary | std::ios::trunc) << bytes;
  ExpectUnverifiable("node-1", "unreadable-wal", "unreadable-wal");
}

TEST_F(NotRead, AWalOfAnotherNodeIsForeign) {
  fs::remove_all(Wal(1));
  fs::copy(Wal(2), Wal(1), fs::copy_options::recursive);
  auto j = ExpectUnverifiable("node-1", "foreign-wal", "foreign-wal");
  EXPECT_NE(j["problems"][0]["detail"].get<std::string>().find("node-2 in the cluster file"), std::string::npos)
      << j["problems"].dump();
}

TEST_F(NotRead, AWalWhoseFirstSegmentsAreGoneMissesTheBase) {
  auto files = wal::ListSegments(Wal(1));
  ASSERT_GE(files->size(), 3u);
  fs::remove((*files)[0].path);
  fs::remove((*files)[1].path);
  // No read error: a node's first segment may have any index. The base tells.
  ExpectUnverifiable("node-1", "wal-misses-base", "");
}

TEST_F(NotRead, AWalThatLostItsLastSegmentsLostTheLaterCuts) {
  auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c_}).out);
  // Cut node-1's WAL at its first cut's Finish record: the later cuts, completed by
  // node-0 and node-2, are over, and node-1 never left the cluster.
  wal::Pointer finish;
  for (const auto& n : cuts["cuts"][0]["nodes"]) {
    if (n["node"] == "node-1") finish = *wal::Pointer::Parse(n["finish"].get<std::string>());
  }
  auto files = wal::ListSegments(Wal(1));
  for (const auto& f : *files) {
    if (f.index > finish.segment) fs::remove(f.path);
  }
  fs::resize_file(fmt::format("{}/{}", Wal(1), wal::SegmentFileName(finish.segment, false)), finish.offset + 100);
  auto r = RunCli({"check", "--json", c_});
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["cuts"].size(), 3u);
  EXPECT_EQ(j["cuts"][0]["status"], "consistent");
  // The last cut may still be running as far as the WALs tell (nothing later was
  // written): incomplete. Every cut before it is over.
  EXPECT_EQ(j["cuts"][2]["status"], "incomplete");
  for (size_t k = 1; k + 1 < j["cuts"].size(); ++k) {
    const auto& c = j["cuts"][k];
    EXPECT_EQ(c["status"], "unverifiable") << c.dump();
    bool lost = false;
    for (const auto& v : c["violations"]) lost |= v["kind"] == "records-lost" && v["nodes"][0] == "node-1";
    EXPECT_TRUE(lost) << c.dump();
  }
}

TEST_F(NotRead, AnOnlySegmentOfGarbageFailsTheCheck) {
  TempDir d;
  const std::string wal_dir = d.path() + "/wal";
  fs::create_directories(wal_dir);
  std::ofstream(wal_dir + "/0000000000000000.wal", std::ios::binary) << std::string(4096, 'x');
  auto r = RunCli({"check", wal_dir});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("PROBLEMS FOUND"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("0000000000000000.wal"), std::string::npos) << r.err;
}

TEST_F(NotRead, AReadErrorOutsideEveryWindowStillFailsTheCheck) {
  // Garbage appended to node-0's last segment after its sound records: not a torn tail
  // (not zeros, not a record cut short), after the last cut's window began.
  auto files = wal::ListSegments(Wal(0));
  std::ofstream(files->back().path, std::ios::binary | std::ios::app)
      << std::string(64, '\x5a') << std::string(64, 'x');
  auto r = RunCli({"check", "--json", c_});
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  bool listed = false;
  for (const auto& p : j["problems"]) listed |= p["node"] == "node-0" && p["kind"] == "read-errors";
  EXPECT_TRUE(listed) << j.dump();
}

// Impossible shapes of the cut records are damage, not a failed cut.
TEST_F(NotRead, AFinishWithNoStartAnywhereFailsTheCheck) {
  wal::Uuid victim;
  for (int n = 0; n < 3; ++n) {
    ASSERT_TRUE(testing_support::RewriteWal(Wal(n), [&](wal::AnyRecord& a) {
      if (a.type != static_cast<uint8_t>(wal::RecordType::kCutStart)) return 1;
      if (victim.IsNil()) victim = a.cut_start.cut_id;
      return a.cut_start.cut_id == victim ? 0 : 1;
    }));
  }
  auto r = RunCli({"check", "--json", c_});
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  int reported = 0;
  for (const auto& c : j["cuts"]) {
    if (c["id"] != victim.ToString()) continue;
    for (const auto& v : c["violations"]) reported += v["kind"] == "finish-without-start";
  }
  EXPECT_EQ(reported, 3) << j.dump(1);
}

TEST_F(NotRead, AStartRemovedFromOneNodeFailsTheCheck) {
  bool dropped = false;
  ASSERT_TRUE(testing_support::RewriteWal(Wal(2), [&](wal::AnyRecord& a) {
    if (dropped || a.type != static_cast<uint8_t>(wal::RecordType::kCutStart)) return 1;
    dropped = true;
    return 0;
  }));
  auto r = RunCli({"check", "--json", c_});
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& v : j["cuts"][0]["violations"])
    found |= v["kind"] == "finish-without-start" && v["nodes"][0] == "node-2";
  EXPECT_TRUE(found) << j["cuts"][0].dump(1);
}

TEST_F(NotRead, AFinishBeforeItsStartFailsTheCheck) {
  // node-0 writes its first cut's Start record right after that cut's Finish record.
  wal::AnyRecord start;
  bool held = false, placed = false;
  ASSERT_TRUE(testing_support::RewriteWalRecords(Wal(0), [&](const wal::AnyRecord& a) {
    if (!held && a.type == static_cast<uint8_t>(wal::RecordType::kCutStart)) {
      start = a;
      held = true;
      return std::vector<wal::AnyRecord>{};
    }
    if (held && !placed && a.type == static_cast<uint8_t>(wal::RecordType::kCutFinish)) {
      placed = true;
      return std::vector<wal::AnyRecord>{a, start};
    }
    return std::vector<wal::AnyRecord>{a};
  }));
  ASSERT_TRUE(placed);
  auto r = RunCli({"check", "--json", c_});
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  bool without = false, before = false;
  for (const auto& v : j["cuts"][0]["violations"]) {
    without |= v["kind"] == "finish-without-start" && v["nodes"][0] == "node-0";
    before |= v["kind"] == "finish-before-start" && v["nodes"][0] == "node-0";
  }
  EXPECT_TRUE(without && before) << j["cuts"][0].dump(1);
}

// Summaries gathered from every node check like the WALs; a crashed server's cuts need
// the cluster file to be told apart from lost ones.
TEST(NotReadSummaries, TheClusterFileGivesTheBaseline) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  sim::SimConfig cfg;
  cfg.out_dir = c;
  cfg.nodes = 3;
  cfg.backups = 1;
  cfg.txs = 6000;
  cfg.cuts = 4;
  cfg.seed = 2;
  sim::Fault f;
  f.kind = sim::FaultKind::kCrashServer;
  f.node = "node-1";
  f.when.txs = 2500;
  cfg.faults.push_back(f);
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  std::vector<std::string> summaries;
  for (int n = 0; n < 3; ++n) {
    summaries.push_back(fmt::format("{}/s{}.json", dir.path(), n));
    ASSERT_EQ(RunCli({"cuts", fmt::format("{}/node-{}", c, n), "-q", "--summary", summaries.back()}).code, 0);
  }
  std::vector<std::string> with = {"check", "-q", "--cluster", c + "/cluster.json", "--summaries"};
  std::vector<std::string> without = {"check", "-q", "--summaries"};
  for (const auto& s : summaries) {
    with.push_back(s);
    without.push_back(s);
  }
  EXPECT_EQ(RunCli({"check", "-q", c}).code, 0);
  EXPECT_EQ(RunCli(with).code, 0);
  // Without it, node-1 is expected in the cuts after its crash.
  EXPECT_EQ(RunCli(without).code, 1);
  // A cluster directory has its own cluster file.
  EXPECT_EQ(RunCli({"check", "-q", "--cluster", c + "/cluster.json", c}).code, 2);
}

}  // namespace
