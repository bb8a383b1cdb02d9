// walcut gaps: finding exactly the counter ranges that were reserved and never applied,
// closing them safely (dry run, idempotence, torn tails, a crash at any byte).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "libwal/segment_file.h"
#include "libwal/wal_writer.h"
#include "recovery/gaps.h"
#include "sim/simulate.h"
#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tools/crash_hook.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

using Range = std::tuple<uint32_t, uint64_t, uint64_t>;  // partition, first, last

std::map<std::string, std::string> Bytes(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out[e.path().string()] = testing_support::ReadFile(e.path().string());
  }
  return out;
}

std::multiset<Range> RollbacksIn(const std::string& wal_dir) {
  std::multiset<Range> out;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, nullptr);
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    if (r->type == static_cast<uint8_t>(wal::RecordType::kRollback)) {
      const auto& rb = r->decoded.rollback;
      out.insert({rb.partition, rb.start + 1, rb.start + rb.range});
    }
  }
  return out;
}

std::set<Range> GapsOf(const std::string& dir, const std::string& node, int* code = nullptr) {
  auto r = RunCli({"gaps", "--json", dir});
  if (code) *code = r.code;
  std::set<Range> out;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& n : doc["nodes"]) {
    if (n["node"] != node) continue;
    for (const auto& p : n["partitions"]) {
      for (const auto& o : p["owners"]) {
        EXPECT_EQ(o["fate"], "rolled-back");
        out.insert({p["partition"].get<uint32_t>(), o["first"].get<uint64_t>(), o["last"].get<uint64_t>()});
      }
    }
  }
  return out;
}

class Gaps : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = dir_.path() + "/c";
    sim::SimConfig cfg;
    cfg.out_dir = c_;
    cfg.txs = 1500;
    cfg.accounts = 200;
    cfg.partitions = 8;
    cfg.rollback_rate = 0.2;
    cfg.segment_size = 32 << 10;
    cfg.seed = 3;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    wal_ = c_ + "/node-1/wal";
    // node-1 crashed before logging its rollbacks: the truth of what gaps must find.
    dropped_ = RollbacksIn(wal_);
    ASSERT_GT(dropped_.size(), 5u);
    check_before_ = RunCli({"check", "--json", c_}).out;
    ASSERT_TRUE(testing_support::RewriteWal(
        wal_, [](wal::AnyRecord& a) { return a.type == static_cast<uint8_t>(wal::RecordType::kRollback) ? 0 : 1; }));
  }
  std::set<Range> Dropped() const { return std::set<Range>(dropped_.begin(), dropped_.end()); }

  TempDir dir_;
  std::string c_, wal_, check_before_;
  std::multiset<Range> dropped_;
};

TEST_F(Gaps, FindsExactlyTheRangesReservedAndNeverApplied) {
  int code = -1;
  EXPECT_EQ(GapsOf(c_, "node-1", &code), Dropped());
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(GapsOf(c_, "node-0").empty());
}

TEST_F(Gaps, DryRunChangesNoByte) {
  auto before = Bytes(c_);
  auto r = RunCli({"gaps", "--close", "--dry-run", c_});
  EXPECT_NE(r.out.find("would write ROLLBACK_TX_RECORD"), std::string::npos);
  EXPECT_EQ(Bytes(c_), before);
}

TEST_F(Gaps, CloseLeavesNoGapAReadableWalAndTheSameVerdicts) {
  auto r = RunCli({"gaps", "--close", c_});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("node-1 wrote ROLLBACK_TX_RECORD"), std::string::npos);
  int code = -1;
  EXPECT_TRUE(GapsOf(c_, "node-1", &code).empty());
  EXPECT_EQ(code, 0);
  EXPECT_EQ(RollbacksIn(wal_), dropped_);
  EXPECT_EQ(RunCli({"dump", "-q", c_}).code, 0);
  EXPECT_EQ(RunCli({"check", "--json", c_}).out, check_before_);
  // A second run writes nothing.
  auto before = Bytes(c_);
  auto again = RunCli({"gaps", "--close", c_});
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.out.find("wrote"), std::string::npos);
  EXPECT_EQ(Bytes(c_), before);
}

TEST_F(Gaps, TornTailIsSavedBesideTheSegmentBeforeAppending) {
  auto files = wal::ListSegments(wal_);
  const auto last = files->back().path;
  const auto size = fs::file_size(last);
  std::string tail = testing_support::ReadFile(last).substr(size - 7);
  fs::resize_file(last, size - 7);
  auto r = RunCli({"gaps", "--close", c_});
  EXPECT_EQ(r.code, 0) << r.err;
  bool saved = false;
  for (const auto& e : fs::directory_iterator(wal_)) {
    std::string name = e.path().filename().string();
    if (name.rfind("torn-", 0) == 0) {
      saved = true;
      // The bytes of the torn record that were left: the whole record minus 7.
      EXPECT_FALSE(testing_support::ReadFile(e.path().string()).empty());
    }
  }
  EXPECT_TRUE(saved);
  auto dump = RunCli({"dump", c_ + "/node-1"});
  EXPECT_EQ(dump.code, 0);
  EXPECT_EQ(dump.err.find("torn tail"), std::string::npos) << dump.err;
}

TEST_F(Gaps, ACrashAtAnyByteOfCloseLosesNothingAndTheNextRunFinishes) {
  const std::string pristine = dir_.path() + "/pristine";
  fs::copy(c_, pristine, fs::copy_options::recursive);
  for (int64_t budget : {0, 1, 9, 17, 40, 41, 100, 333, 1000}) {
    fs::remove_all(c_);
    fs::copy(pristine, c_, fs::copy_options::recursive);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      tools::CrashAfterBytes hook(static_cast<uint64_t>(budget));
      wal::InstallWriteHook(&hook);
      RunCli({"gaps", "--close", "-q", c_});
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    auto r = RunCli({"gaps", "--close", c_});
    EXPECT_EQ(r.code, 0) << "budget " << budget << ": " << r.err;
    EXPECT_EQ(RollbacksIn(wal_), dropped_) << "budget " << budget;
    EXPECT_EQ(RunCli({"dump", "-q", c_}).code, 0) << "budget " << budget;
  }
}

// Interrupted while writing its first record after saving a torn tail, --close leaves a
// partial record of its own at the same place: the rerun keeps the tail saved first.
TEST_F(Gaps, ASavedTornTailIsNeverOverwritten) {
  auto files = wal::ListSegments(wal_);
  const auto last = files->back().path;
  const auto size = fs::file_size(last);
  const std::string whole = testing_support::ReadFile(last);
  fs::resize_file(last, size - 7);
  auto torn_file = [&]() -> std::string {
    for (const auto& e : fs::directory_iterator(wal_)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("torn-", 0) == 0 && name.find(".1.bin") == std::string::npos) return e.path().string();
    }
    return "";
  };
  // The tail left: the last record but its last 7 bytes.
  wal::Pointer end;
  {
    auto reader = wal::WalReader::OpenDirectory(wal_, {}, nullptr);
    const wal::Record* r = nullptr;
    while ((*reader)->Next(&r)) {
    }
    end = (*reader)->end();
  }
  const std::string tail = whole.substr(end.offset, size - 7 - end.offset);
  ASSERT_FALSE(tail.empty());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    tools::CrashAfterBytes hook(tail.size() + 1);  // the tail, then 1 byte
    wal::InstallWriteHook(&hook);
    RunCli({"gaps", "--close", "-q", c_});
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), tools::kCrashExitStatus);
  ASSERT_EQ(testing_support::ReadFile(torn_file()), tail);
  auto r = RunCli({"gaps", "--close", c_});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing_support::ReadFile(torn_file()), tail) << "the saved tail was overwritten";
  EXPECT_EQ(RollbacksIn(wal_), dropped_);
}

TEST_F(Gaps, ANodeDirectoryAloneClosesOnlyRolledBackGaps) {
  EXPECT_EQ(RunCli({"gaps", "--dry-run", c_}).code, 2);  // --dry-run without --close
  auto r = RunCli({"gaps", "--close", c_ + "/node-1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RollbacksIn(wal_), dropped_);
}

}  // namespace

namespace {

// A node with two roles in one transaction logs a PREPARED record per role; a gap of the
// second role is prepared while that role is open, whatever the first role's outcome.
TEST(GapFates, ARoleStillOpenIsPreparedWhenAnotherRoleCommitted) {
  TempDir dir;
  const std::string wal_dir = dir.path() + "/n/wal";
  auto w = wal::WalWriter::Create(wal_dir, wal::Uuid{1, 2}, 1, wal::WriterOptions{});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const wal::TxId x{1, 1, 7};
  auto prepared = [&](uint32_t partition) {
    wal::TxRecord t;
    t.state = wal::TxState::kPrepared;
    t.xid = x;
    t.participants = {{1, {}}};
    t.counters = {{1, partition, 0, 1}};
    return t;
  };
  wal::TxRecord committed;
  committed.state = wal::TxState::kCommitted;
  committed.xid = x;
  committed.participants = {{1, {}}};
  wal::DataRecord data;
  data.entries.push_back(wal::DataEntry{1, 0, 1, wal::EntryOp::kUpdate, 0, x, x, "k", "v"});
  ASSERT_TRUE((*w)->Append(prepared(0)).ok());
  ASSERT_TRUE((*w)->Append(prepared(1)).ok());
  ASSERT_TRUE((*w)->Append(data).ok());
  ASSERT_TRUE((*w)->Append(committed).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto fate_of_partition_1 = [&]() -> std::string {
    auto g = recovery::ScanGaps("n", wal_dir);
    EXPECT_TRUE(g.ok());
    for (const auto& c : g->copies) {
      if (c.partition == 1 && c.gaps.size() == 1) return recovery::GapFateName(c.gaps[0].fate);
    }
    return "no gap";
  };
  EXPECT_EQ(fate_of_partition_1(), "prepared");
  // Both roles finished COMMITTED without applying partition 1's counter: damage.
  auto again = wal::WalWriter::OpenForAppend(wal_dir, wal::WriterOptions{});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE((*again)->Append(committed).ok());
  ASSERT_TRUE((*again)->Close().ok());
  EXPECT_EQ(fate_of_partition_1(), "committed");
}

}  // namespace
