// walcut data, verify and restore of Apache Ignite's full snapshots (the fixtures that keep
// their page files): what each refuses, and that a damaged snapshot is never restored or
// passed. Ignite's own verdicts and restores are held to in tests/ignite (snapshot_truth.py,
// restore_truth.py).
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

const std::string kFixtures = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite";

// A copy of a fixture's nodes/ in `tmp`.
std::string CopyNodes(const std::string& fixture, const TempDir& tmp) {
  const std::string to = tmp.path() + "/nodes";
  fs::copy(kFixtures + "/" + fixture + "/nodes", to, fs::copy_options::recursive);
  return to;
}

std::string Store(const std::string& nodes, const std::string& node, const std::string& snapshot = "snap") {
  const std::string folder = node == "server-0" ? "server_0" : node == "server-1" ? "server_1" : "server_2";
  return nodes + "/" + node + "/work/snapshots/" + snapshot + "/db/" + folder;
}

void FlipByte(const std::string& path, size_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 1);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

TEST(IgniteSnapshotCli, ADamagedPageFileRefusesTheRestoreAndFailsVerifyAndData) {
  TempDir tmp;
  const std::string nodes = CopyNodes("full", tmp);
  const std::string file = Store(nodes, "server-1") + "/cache-bank/part-3.bin";
  FlipByte(file, 9 * 4096 - 10);  // inside page 7
  auto r = RunCli({"restore", nodes, "--increment", "1", "-o", tmp.path() + "/out"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the full snapshot is damaged"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("part-3.bin\": page 7"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/out"));
  auto v = RunCli({"verify", "--snapshot", "snap", nodes});
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("conflict damaged group bank (3016252) partition 3 [server_1]"), std::string::npos) << v.out;
  auto d = RunCli({"data", "-q", "--snapshot", "snap", nodes});
  EXPECT_EQ(d.code, 1);
  EXPECT_NE(d.err.find("CRC"), std::string::npos) << d.err;
}

TEST(IgniteSnapshotCli, APartitionWhoseWritesTheSnapshotDoesNotHoldIsRefused) {
  TempDir tmp;
  const std::string nodes = CopyNodes("full", tmp);
  // server-0's copy of bank partition 3 gone from its snapshot, while its WAL holds writes of it.
  fs::remove(Store(nodes, "server-0") + "/cache-bank/part-3.bin");
  auto r = RunCli({"restore", nodes, "--increment", "3", "-o", tmp.path() + "/out"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("a partition the node's full snapshot does not hold"), std::string::npos) << r.err;
  auto v = RunCli({"verify", "--snapshot", "snap", nodes});
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("conflict missing-copy group bank (3016252) partition 3 [server_0]: its metadata lists "
                       "partition 3"),
            std::string::npos)
      << v.out;
}

TEST(IgniteSnapshotCli, ABaselineNodeNotGivenIsNeverAnOk) {
  const std::string nodes = kFixtures + "/full/nodes";
  auto v = RunCli({"verify", nodes + "/server-0/work/snapshots/snap", nodes + "/server-1/work/snapshots/snap"});
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.out.find("conflict not-read [server-2]: baseline node server-2 of the snapshot was not given"),
            std::string::npos)
      << v.out;
}

TEST(IgniteSnapshotCli, AWorkDirectoryWithoutPageFilesNamesItsSnapshots) {
  auto d = RunCli({"data", kFixtures + "/rebalance/nodes/server-0"});
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.err.find("its full snapshots: snap, snap2 (give --snapshot NAME)"), std::string::npos) << d.err;
  auto s = RunCli({"verify", "--snapshot", "nope", kFixtures + "/rebalance/nodes"});
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("holds no snapshot 'nope' (it holds snap, snap2)"), std::string::npos) << s.err;
}

TEST(IgniteSnapshotCli, RestoreOfATruncatedArchiveComesFromTheSnapshotAndSaysSo) {
  TempDir tmp;
  const std::string nodes = kFixtures + "/truncated/nodes";
  auto plan = RunCli({"restore", nodes, "--increment", "3", "--dry-run", "-o", tmp.path() + "/out"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  EXPECT_NE(plan.out.find("(Ignite's full snapshot 'snap')"), std::string::npos) << plan.out;
  // Without the page files, the restore would need each node's WAL from segment 0, which
  // Ignite deleted: refused, saying both.
  TempDir tmp2;
  const std::string copy = CopyNodes("truncated", tmp2);
  for (const char* n : {"server-0", "server-1", "server-2"}) fs::remove_all(Store(copy, n));
  auto r = RunCli({"restore", copy, "--increment", "3", "-o", tmp2.path() + "/out"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("holds no page files of it"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not at segment 0"), std::string::npos) << r.err;
}

TEST(IgniteSnapshotCli, DataFiltersByCacheNameAndPrintsSignedIds) {
  auto d = RunCli({"data", "--summary", "--snapshot", "snap", "--cache", "events", "--node", "server_0",
                   kFixtures + "/full/nodes"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("server_0 cache -1291329255 (events) partition "), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("(bank)"), std::string::npos);
  auto none = RunCli({"data", "--snapshot", "snap", "--cache", "nope", kFixtures + "/full/nodes"});
  EXPECT_EQ(none.code, 2);
}

TEST(IgniteSnapshotCli, AnIncrementIsCheckedFromItsFullSnapshotOnNotFromTheWholeHistory) {
  TempDir tmp;
  const std::string nodes = CopyNodes("rebalance", tmp);
  // Damage in server-0's segment 2, before snap2's CLUSTER_SNAPSHOT record (segment 4).
  const std::string seg = nodes + "/server-0/work/db/wal/archive/server_0/0000000000000002.wal.zip";
  FlipByte(seg, fs::file_size(seg) / 2);
  auto whole = RunCli({"check", nodes});
  EXPECT_EQ(whole.code, 1) << "the damage is in what a whole check reads";
  auto one = RunCli({"check", nodes, "--snapshot", "snap2", "--increment", "1"});
  EXPECT_EQ(one.code, 0) << one.err << one.out;
  EXPECT_NE(one.out.find("increment 1 of \"snap2\""), std::string::npos) << one.out;
  auto restore = RunCli({"restore", nodes, "--snapshot", "snap2", "--increment", "1", "-o", tmp.path() + "/out"});
  EXPECT_EQ(restore.code, 0) << restore.err;
  // snap's increment 1 needs segment 2: damage it is.
  auto before = RunCli({"check", nodes, "--snapshot", "snap", "--increment", "1"});
  EXPECT_EQ(before.code, 1);
}

}  // namespace
