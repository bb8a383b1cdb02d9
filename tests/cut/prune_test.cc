// walcut prune: it removes only segments no kept increment needs (the kept cuts restore
// afterwards, the ones given up do not), refuses to leave no restorable cut, moves
// without overwriting, and a crash at any file leaves whole WALs that the next run
// finishes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "libcut/side.h"
#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tools/crash_hook.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

// Every file under `root`, by path relative to it, with its bytes.
std::map<std::string, std::string> Files(const std::string& root) {
  std::map<std::string, std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), root).string()] = testing_support::ReadFile(e.path().string());
  }
  return out;
}

// The segment indexes of a node's WAL, in order.
std::vector<uint64_t> Segments(const std::string& wal) {
  std::vector<uint64_t> out;
  auto files = wal::ListSegments(wal);
  EXPECT_TRUE(files.ok());
  for (const auto& f : *files) out.push_back(f.index);
  return out;
}

class Prune : public ::testing::Test {
 protected:
  // Four servers, node-3 crashing part way: three increments of "base", then a new full
  // snapshot "snap-1" of the three survivors and its increments; small segments.
  static void SetUpTestSuite() {
    pristine_ = new TempDir();
    c0_ = pristine_->path() + "/c";
    auto r = RunCli({"simulate", "-q", "-o", c0_, "--nodes", "4", "--backups", "2", "--txs", "12000", "--cuts", "6",
                     "--crash", "node-3@5000", "--segment-size", "128K", "--seed", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete pristine_; }
  void SetUp() override {
    c_ = dir_.path() + "/c";
    fs::copy(c0_, c_, fs::copy_options::recursive);
  }
  nlohmann::json Json(const std::vector<std::string>& args, int want = 0) {
    auto r = RunCli(args);
    EXPECT_EQ(r.code, want) << r.err;
    return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
  }

  static TempDir* pristine_;
  static std::string c0_;
  TempDir dir_;
  std::string c_;
};

TempDir* Prune::pristine_ = nullptr;
std::string Prune::c0_;

TEST_F(Prune, KeptIncrementsStayRestorableAndOnlyTheSegmentsBeforeTheirBaseGo) {
  // With every cut restorable and no policy, nothing goes.
  auto all = Json({"prune", "--json", c_});
  EXPECT_EQ(all["files"], 0);
  auto plan = Json({"prune", "--json", "--keep-increments", "2", c_});
  ASSERT_GT(plan["files"].get<uint64_t>(), 0u);
  std::vector<std::string> kept, lost;
  for (const auto& c : plan["cuts"]) {
    ASSERT_TRUE(c["restorable"].get<bool>()) << c;
    if (c["kept"].get<bool>()) {
      EXPECT_TRUE(c["restorable_after"].get<bool>()) << c;
      kept.push_back(c["id"]);
    }
    if (!c["restorable_after"].get<bool>()) lost.push_back(c["id"]);
  }
  ASSERT_EQ(kept.size(), 2u);
  ASSERT_FALSE(lost.empty());
  for (const auto& n : plan["nodes"]) {
    for (const auto& f : n["files"]) EXPECT_LT(f["segment"].get<uint64_t>(), n["keep_from"].get<uint64_t>());
  }
  // The plan changed nothing; --apply removes exactly its files.
  const auto before = Files(c_);
  EXPECT_EQ(Files(c_), before);
  auto done = Json({"prune", "--json", "--keep-increments", "2", "--apply", c_});
  EXPECT_TRUE(done["applied"].get<bool>());
  EXPECT_EQ(done["files"], plan["files"]);
  for (const auto& n : plan["nodes"]) {
    for (const auto& f : n["files"]) EXPECT_FALSE(fs::exists(f["path"].get<std::string>())) << f;
    // What is left is a whole WAL from keep_from on.
    const auto segs = Segments(c_ + "/" + n["node"].get<std::string>() + "/wal");
    ASSERT_FALSE(segs.empty());
    for (size_t i = 1; i < segs.size(); ++i) EXPECT_EQ(segs[i], segs[i - 1] + 1);
  }
  for (const auto& id : kept) {
    auto r = RunCli({"restore", "--dry-run", "-q", "--cut", id, c_});
    EXPECT_EQ(r.code, 0) << id << ": " << r.err;
  }
  for (const auto& id : lost) {
    auto r = RunCli({"restore", "--dry-run", "-q", "--cut", id, c_});
    EXPECT_NE(r.code, 0) << id << " is still restorable after its segments were pruned";
  }
  // Run again: nothing more to do.
  EXPECT_EQ(Json({"prune", "--json", "--keep-increments", "2", "--apply", c_})["files"], 0);
}

TEST_F(Prune, WithoutAPolicyOnlyWhatNoRestorableCutNeedsGoes) {
  // The base snapshot "base" is deleted on one node: its increments are no longer
  // restorable, and the WAL before "snap-1" serves none.
  fs::remove_all(c_ + "/node-0/snapshots/base");
  auto plan = Json({"prune", "--json", c_});
  EXPECT_GT(plan["files"].get<uint64_t>(), 0u);
  for (const auto& c : plan["cuts"]) {
    if (c["base"] == "base") {
      EXPECT_FALSE(c["restorable"].get<bool>()) << c;
    } else {
      EXPECT_TRUE(c["restorable_after"].get<bool>()) << c;
    }
  }
}

TEST_F(Prune, RefusesToLeaveNoRestorableCutAndChangesNothing) {
  // Only the increments of "base" are restorable (snap-1 is gone on node-1); keeping the
  // cuts from snap-1's first on would prune all of them.
  fs::remove_all(c_ + "/node-1/snapshots/snap-1");
  auto cuts = Json({"prune", "--json", c_});
  std::string first_snap1, newest_base;
  for (const auto& c : cuts["cuts"]) {
    if (c["base"] == "snap-1" && first_snap1.empty()) first_snap1 = c["id"];
    if (c["base"] == "base" && c["restorable"].get<bool>()) newest_base = c["id"];
  }
  ASSERT_FALSE(first_snap1.empty());
  ASSERT_FALSE(newest_base.empty());
  const auto before = Files(c_);
  auto r = RunCli({"prune", "--apply", "--before", first_snap1, c_});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("no restorable cut"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(newest_base), std::string::npos) << "the refusal names the cut: " << r.err;
  EXPECT_EQ(Files(c_), before);
  // --force prunes anyway.
  r = RunCli({"prune", "--apply", "--force", "-q", "--before", first_snap1, c_});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(Files(c_), before);
}

TEST_F(Prune, ACrashAtAnyFileLeavesWholeWalsAndTheNextRunFinishes) {
  const std::string reference = dir_.path() + "/reference";
  fs::copy(c_, reference, fs::copy_options::recursive);
  ASSERT_EQ(RunCli({"prune", "-q", "--apply", "--keep-increments", "1", reference}).code, 0);
  const auto want = Files(reference);
  const std::string work = dir_.path() + "/work";
  for (int64_t budget : {0, 1, 2, 5, 9, 17}) {
    fs::remove_all(work);
    fs::copy(c_, work, fs::copy_options::recursive);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      tools::SetRemovalBudget(budget);
      RunCli({"prune", "-q", "--apply", "--keep-increments", "1", work});
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), tools::kCrashExitStatus) << "budget " << budget;
    for (const char* node : {"node-0", "node-1", "node-2", "node-3"}) {
      const auto segs = Segments(work + "/" + node + "/wal");
      for (size_t i = 1; i < segs.size(); ++i) EXPECT_EQ(segs[i], segs[i - 1] + 1) << node << " budget " << budget;
    }
    auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "1", work});
    EXPECT_EQ(r.code, 0) << "budget " << budget << ": " << r.err;
    EXPECT_EQ(Files(work), want) << "budget " << budget;
  }
}

TEST_F(Prune, MovesWithoutOverwritingAndAgainIsANoOp) {
  const std::string moved = dir_.path() + "/moved";
  auto plan = Json({"prune", "--json", "--keep-increments", "2", c_});
  ASSERT_GT(plan["files"].get<uint64_t>(), 0u);
  const auto before = Files(c_);
  // A file of another content already where the first would go: refused, nothing lost.
  const auto& n0 = plan["nodes"][0];
  ASSERT_FALSE(n0["files"].empty());
  const fs::path first = n0["files"][0]["path"].get<std::string>();
  fs::create_directories(moved + "/" + n0["node"].get<std::string>());
  const std::string squatter = moved + "/" + n0["node"].get<std::string>() + "/" + first.filename().string();
  { std::ofstream(squatter) << "not the segment"; }
  auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", moved, c_});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("not overwritten"), std::string::npos) << r.err;
  EXPECT_EQ(Files(c_), before);
  EXPECT_EQ(testing_support::ReadFile(squatter), "not the segment");
  fs::remove(squatter);
  r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", moved, c_});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const auto& n : plan["nodes"]) {
    for (const auto& f : n["files"]) {
      const fs::path p = f["path"].get<std::string>();
      EXPECT_FALSE(fs::exists(p));
      EXPECT_EQ(testing_support::ReadFile(moved + "/" + n["node"].get<std::string>() + "/" + p.filename().string()),
                before.at(fs::relative(p, c_).string()));
    }
  }
  EXPECT_EQ(Json({"prune", "--json", "--keep-increments", "2", "--apply", "--move-to", moved, c_})["files"], 0);
}

// A --move-to that cannot be made (a file on its way) or is a file fails before any WAL
// is read: with a node's WAL gone, which the reading would report (exit 1), it is still the
// error, and nothing is removed.
TEST_F(Prune, AMoveToThatCannotBeMadeFailsBeforeAnyWalIsRead) {
  const auto before = Files(c_);
  { std::ofstream(dir_.path() + "/file") << "x"; }
  for (const std::string& to : {dir_.path() + "/file/moved", dir_.path() + "/file"}) {
    auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", to, c_});
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("--move-to: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Files(c_), before);
  fs::rename(c_ + "/node-1/wal", c_ + "/node-1/wal.away");
  auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", dir_.path() + "/file/m", c_});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("--move-to: "), std::string::npos) << r.err;
  EXPECT_NE(RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", dir_.path() + "/m", c_}).code, 0);
  EXPECT_FALSE(fs::exists(dir_.path() + "/m"));
}

// --move-to whose node folder is a link to the node's own WAL folder: every file "already
// there" is the file itself; refused, nothing removed.
TEST_F(Prune, MovingIntoTheWalsOwnFolderIsRefusedAndRemovesNothing) {
  const std::string moved = dir_.path() + "/moved";
  auto plan = Json({"prune", "--json", "--keep-increments", "2", c_});
  ASSERT_GT(plan["files"].get<uint64_t>(), 0u);
  const std::string node = plan["nodes"][0]["node"];
  fs::create_directories(moved);
  fs::create_directory_symlink(c_ + "/" + node + "/wal", moved + "/" + node);
  const auto before = Files(c_);
  auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", moved, c_});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("the WAL's own folder"), std::string::npos) << r.err;
  EXPECT_EQ(Files(c_), before);
}

// --move-to on another file system (no hard link possible): each file is copied with its
// bytes and permissions, synced, linked into place, and no ".partial" copy is left.
TEST_F(Prune, MovesAcrossFileSystemsByCopyingWithTheSameBytesAndMode) {
  struct stat here {
  }, shm{};
  if (::stat(dir_.path().c_str(), &here) != 0 || ::stat("/dev/shm", &shm) != 0 || here.st_dev == shm.st_dev ||
      ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "needs a writable /dev/shm on another file system than the test's folder";
  }
  char tmpl[] = "/dev/shm/walcut-prune-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string moved = std::string(tmpl) + "/moved";
  auto plan = Json({"prune", "--json", "--keep-increments", "2", c_});
  ASSERT_GT(plan["files"].get<uint64_t>(), 0u);
  const auto before = Files(c_);
  const fs::path first = plan["nodes"][0]["files"][0]["path"].get<std::string>();
  ASSERT_EQ(::chmod(first.c_str(), 0640), 0);
  auto r = RunCli({"prune", "-q", "--apply", "--keep-increments", "2", "--move-to", moved, c_});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const auto& n : plan["nodes"]) {
    for (const auto& f : n["files"]) {
      const fs::path p = f["path"].get<std::string>();
      const std::string to = moved + "/" + n["node"].get<std::string>() + "/" + p.filename().string();
      EXPECT_FALSE(fs::exists(p));
      EXPECT_EQ(testing_support::ReadFile(to), before.at(fs::relative(p, c_).string()));
      EXPECT_FALSE(fs::exists(to + ".partial"));
    }
  }
  struct stat st {};
  const std::string first_to =
      moved + "/" + plan["nodes"][0]["node"].get<std::string>() + "/" + first.filename().string();
  ASSERT_EQ(::stat(first_to.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

// `cuts`: each increment's window counts the records from the previous increment's
// Finish record (or the base snapshot's record) to its own, on each node, the commits on
// its cut's Before side and not on the previous one's, and says whether restore would
// take it now.
using IncrementWindows = Prune;

TEST_F(IncrementWindows, CountTheRecordsOfEachRangeAndSayWhatIsRestorable) {
  auto listing = Json({"cuts", "--json", c_});
  // Independently: each node's records, read here, between the boundaries.
  std::map<std::string, std::vector<std::pair<wal::Pointer, bool>>> records;  // node -> (ptr, COMMITTED tx)
  std::map<std::string, std::map<std::string, wal::Pointer>> bases;           // node -> name -> record
  // Each node's commits (COMMITTED or UNKNOWN) and each cut's records and sets there.
  struct CutRecords {
    wal::Pointer start, finish;
    std::set<wal::TxId> before, after;
  };
  std::map<std::string, std::vector<std::pair<wal::Pointer, wal::TxId>>> commits;
  std::map<std::string, std::map<std::string, CutRecords>> cut_records;  // node -> cut id -> records
  for (const char* node : {"node-0", "node-1", "node-2", "node-3"}) {
    auto reader = wal::WalReader::OpenDirectory(c_ + "/" + node + "/wal", {}, nullptr);
    ASSERT_TRUE(reader.ok());
    const wal::Record* r = nullptr;
    while ((*reader)->Next(&r)) {
      const auto& d = r->decoded;
      const bool tx = r->type == static_cast<uint8_t>(wal::RecordType::kTx);
      const bool commit = tx && d.tx.state == wal::TxState::kCommitted;
      records[node].emplace_back(r->ptr, commit);
      if (tx && (commit || d.tx.state == wal::TxState::kUnknown)) commits[node].emplace_back(r->ptr, d.tx.xid);
      if (r->type == static_cast<uint8_t>(wal::RecordType::kClusterSnapshot)) {
        bases[node][std::string(d.snapshot.name)] = r->ptr;
      }
      if (r->type == static_cast<uint8_t>(wal::RecordType::kCutStart)) {
        cut_records[node][d.cut_start.cut_id.ToString()].start = r->ptr;
      }
      if (r->type == static_cast<uint8_t>(wal::RecordType::kCutFinish)) {
        CutRecords& cr = cut_records[node][d.cut_finish.cut_id.ToString()];
        cr.finish = r->ptr;
        cr.before.insert(d.cut_finish.before.begin(), d.cut_finish.before.end());
        cr.after.insert(d.cut_finish.after.begin(), d.cut_finish.after.end());
      }
    }
  }
  auto side = [](const CutRecords& cr, const wal::Pointer& at, const wal::TxId& x) {
    return cut::SideOfCommit(
        cut::RegionOf(at, cr.start, cr.finish), [&] { return cr.before.count(x) != 0; },
        [&] { return cr.after.count(x) != 0; });
  };
  std::map<std::string, std::string> last_cut;  // base -> the id of its previous consistent cut
  size_t differ = 0;                            // windows whose Before commits are not its range's commits
  std::map<std::string, std::map<std::string, wal::Pointer>> last;  // base -> node -> previous Finish
  size_t windows = 0;
  uint64_t last_to = 0;
  std::string last_base;
  for (const auto& c : listing["cuts"]) {
    ASSERT_EQ(c["status"], "consistent");
    ASSERT_TRUE(c["window"].is_object()) << c;
    EXPECT_TRUE(c["restorable"].get<bool>()) << c;
    const std::string base = c["base"];
    const auto& w = c["window"];
    if (base == last_base) {
      EXPECT_EQ(w["from_ts"].get<uint64_t>(), last_to) << "windows of one base follow each other";
    }
    EXPECT_LT(w["from_ts"].get<uint64_t>(), w["to_ts"].get<uint64_t>());
    last_to = w["to_ts"].get<uint64_t>();
    last_base = base;
    uint64_t want_records = 0, want_commits = 0, want_before = 0;
    const std::string id = c["id"];
    for (const auto& n : c["nodes"]) {
      const std::string node = n["node"];
      const wal::Pointer finish = *wal::Pointer::Parse(n["finish"].get<std::string>());
      const wal::Pointer from = last[base].count(node) ? last[base][node] : bases[node].at(base);
      for (const auto& [ptr, commit] : records[node]) {
        if (from < ptr && !(finish < ptr)) {
          ++want_records;
          want_commits += commit;
        }
      }
      last[base][node] = finish;
      // Before this cut, and not Before the previous one (or not before the base's record).
      const CutRecords& now = cut_records[node].at(id);
      for (const auto& [ptr, xid] : commits[node]) {
        if (side(now, ptr, xid) != cut::Side::kBefore) continue;
        const bool was = last_cut.count(base)
                             ? side(cut_records[node].at(last_cut[base]), ptr, xid) == cut::Side::kBefore
                             : ptr < bases[node].at(base);
        want_before += !was;
      }
    }
    last_cut[base] = id;
    EXPECT_EQ(w["records"].get<uint64_t>(), want_records) << c["id"];
    EXPECT_EQ(w["commits"].get<uint64_t>(), want_commits) << c["id"];
    EXPECT_EQ(w["before_commits"].get<uint64_t>(), want_before) << c["id"];
    differ += want_before != want_commits;
    EXPECT_GT(w["bytes"].get<uint64_t>(), want_records * 8) << c["id"];
    ++windows;
  }
  EXPECT_EQ(windows, 6u);
  EXPECT_GT(differ, 0u) << "no window tells a count of its range's commits from its Before commits";
  // The base "base" gone from one node: its increments are not restorable, and say why.
  fs::remove_all(c_ + "/node-2/snapshots/base");
  const auto relisted = Json({"cuts", "--json", c_});
  for (const auto& c : relisted["cuts"]) {
    if (c["base"] == "base") {
      EXPECT_FALSE(c["restorable"].get<bool>()) << c;
      EXPECT_NE(c["not_restorable"].get<std::string>().find("node-2"), std::string::npos) << c;
    } else {
      EXPECT_TRUE(c["restorable"].get<bool>()) << c;
    }
  }
  auto text = RunCli({"cuts", c_});
  EXPECT_NE(text.out.find("; not restorable: "), std::string::npos) << text.out;
  // Node directories one by one are not what restore takes: unknown.
  const auto by_node = Json({"cuts", "--json", c_ + "/node-0", c_ + "/node-1"});
  for (const auto& c : by_node["cuts"]) {
    EXPECT_TRUE(c["restorable"].is_null()) << c;
  }
}

TEST(PruneUsage, BadCombinationsAndNamesAreUsageErrors) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--txs", "500", "--cuts", "1"}).code, 0);
  EXPECT_EQ(RunCli({"prune", "--force", c}).code, 2);
  EXPECT_EQ(RunCli({"prune", "--move-to", dir.path() + "/m", c}).code, 2);
  EXPECT_EQ(RunCli({"prune", "--keep-increments", "0", c}).code, 2);
  EXPECT_EQ(RunCli({"prune", "--keep-increments", "1", "--keep-base", "base", c}).code, 2);
  auto r = RunCli({"prune", "--keep-base", "no-such", c});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no-such"), std::string::npos) << r.err;
  EXPECT_EQ(RunCli({"prune", "--before", "ffff", c}).code, 2);
  EXPECT_EQ(RunCli({"prune", dir.path() + "/nothing"}).code, 3);
  // Apache Ignite's WAL: a report, never --apply.
  const std::string ignite = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes";
  EXPECT_EQ(RunCli({"prune", "-q", ignite}).code, 0);
  r = RunCli({"prune", "--apply", ignite});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("report"), std::string::npos) << r.err;
}

}  // namespace
