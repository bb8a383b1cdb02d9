// walcut data, verify and restore of Apache Ignite's full snapshots (the fixtures that keep
// their page files): what each refuses, and that a damaged snapshot is never restored or
// passed. Ignite's own verdicts and restores are held to in tests/ignite (snapshot_truth.py,
// restore_truth.py).
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "libwal/coding.h"
#include "libwal/file_io.h"
#include "libwal/ignite_page.h"
#include "libwal/ignite_partition_file.h"
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

// A key in two rows of a partition file (its CRC sound) is damage a restore never takes
// one of; verify finds the copy unlike its backups'.
TEST(IgniteSnapshotCli, AKeyInTwoRowsOfTheFullSnapshotRefusesTheRestore) {
  TempDir tmp;
  const std::string nodes = CopyNodes("full", tmp);
  const std::string path = Store(nodes, "server-1") + "/cache-events/part-1.bin";  // keys 1000006, 1000014
  // Two rows of one data page: the second's key bytes are made the first's.
  std::string bytes = wal::ReadFileToString(path, 64 << 20).value();
  std::vector<std::pair<uint64_t, std::string>> rows;  // (page, key)
  auto read_keys = [&](const std::string& b) {
    rows.clear();
    auto file = wal::IgnitePartitionFile::FromBytes(path, b);
    ASSERT_TRUE(file.ok()) << file.status().message();
    wal::IgnitePartitionFile::Outcome outcome;
    ASSERT_TRUE(file->ReadRows(
                        {},
                        [&](const wal::PartitionRow& r) {
                          rows.emplace_back(wal::ignite_page::PageIndexOf(r.link), std::string(r.row.key));
                        },
                        &outcome)
                    .ok());
    ASSERT_TRUE(outcome.damage.empty()) << outcome.damage.front().ToString(path);
  };
  read_keys(bytes);
  ASSERT_FALSE(HasFatalFailure());
  const auto file = wal::IgnitePartitionFile::FromBytes(path, bytes).value();
  const size_t header = file.header().size, page_size = file.header().page_size;
  bool done = false;
  for (size_t i = 0; i < rows.size() * rows.size() && !done; ++i) {
    const auto& [page, a] = rows[i / rows.size()];
    const auto& b = rows[i % rows.size()].second;
    if (rows[i % rows.size()].first != page || a.size() != b.size() || a == b) continue;
    const size_t from = header + page * page_size;
    const size_t at = bytes.find(b, from);
    ASSERT_NE(at, std::string::npos);
    ASSERT_LT(at + b.size(), from + page_size) << "the key's bytes are in its page";
    bytes.replace(at, b.size(), a);
    wal::EncodeFixed32(bytes.data() + from + 4,
                       wal::ignite_page::PageCrc(std::string_view(bytes).substr(from, page_size)));
    done = true;
  }
  ASSERT_TRUE(done) << "no data page with two rows";
  read_keys(bytes);
  ASSERT_FALSE(HasFatalFailure());
  std::set<std::string> keys;
  for (const auto& [page, key] : rows) keys.insert(key);
  ASSERT_EQ(keys.size() + 1, rows.size()) << "one key in two rows, nothing else changed";
  ASSERT_TRUE(wal::WriteFileAtomically(path, bytes, false).ok());

  auto r = RunCli({"restore", nodes, "--increment", "1", "-o", tmp.path() + "/out"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the full snapshot is damaged"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("part-1.bin\": cache 'events' holds a key in more than one row"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/out"));
  // A restore of another cache refuses it all the same, and so does --dry-run.
  auto other = RunCli({"restore", nodes, "--increment", "1", "--cache", "bank", "-o", tmp.path() + "/out"});
  EXPECT_EQ(other.code, 1) << other.err;
  EXPECT_NE(other.err.find("part-1.bin\": cache 'events' holds a key in more than one row"), std::string::npos)
      << other.err;
  auto dry = RunCli({"restore", nodes, "--increment", "1", "--dry-run"});
  EXPECT_EQ(dry.code, 1) << dry.err << dry.out;
  EXPECT_NE(dry.err.find("cache 'events' holds a key in more than one row"), std::string::npos) << dry.err;
  auto v = RunCli({"verify", "--snapshot", "snap", nodes});
  EXPECT_EQ(v.code, 1);
  // verify compares the copies' hashes, as Ignite's snapshot check does: the copy differs.
  EXPECT_NE(v.out.find("conflict content group events (-1291329255) partition 1 [server_0,server_1]"),
            std::string::npos)
      << v.out << v.err;
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

// cuts' "restorable" is restore's own plan: the path it takes, or why it would refuse.
TEST(IgniteSnapshotCli, CutsSaysWhatRestoreWillDoAndFromWhere) {
  const std::string nodes = kFixtures + "/truncated/nodes";
  auto l = RunCli({"cuts", nodes});
  ASSERT_EQ(l.code, 0) << l.err;
  size_t restorable = 0;
  for (size_t at = 0; (at = l.out.find("; restorable from Ignite's full snapshot 'snap' and the increments' WAL\n",
                                       at)) != std::string::npos;
       ++at) {
    ++restorable;
  }
  EXPECT_EQ(restorable, 4u) << l.out;
  // From the snapshot copied off the cluster alone (one directory per node), the same.
  auto s = RunCli({"cuts", "--json", nodes + "/server-0/work/snapshots/snap", nodes + "/server-1/work/snapshots/snap",
                   nodes + "/server-2/work/snapshots/snap"});
  ASSERT_EQ(s.code, 0) << s.err;
  size_t from_snapshot = 0;
  for (size_t at = 0;
       (at = s.out.find("\"restorable\":true,\"restore_from\":\"ignite-snapshot\"", at)) != std::string::npos; ++at) {
    ++from_snapshot;
  }
  EXPECT_EQ(from_snapshot, 4u) << s.out;
  // Without the page files, and the archive's first segment gone: not restorable, saying both.
  TempDir tmp;
  const std::string copy = CopyNodes("truncated", tmp);
  for (const char* n : {"server-0", "server-1", "server-2"}) fs::remove_all(Store(copy, n));
  auto n = RunCli({"cuts", copy});
  EXPECT_EQ(n.out.find("; restorable"), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("; not restorable: "), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("holds no page files of it"), std::string::npos) << n.out;
  EXPECT_NE(n.out.find("not at segment 0"), std::string::npos) << n.out;
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

TEST(IgniteSnapshotCli, AnIncrementIsCheckedFromItsFullSnapshotToItsFinishRecord) {
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
  // snap's increment 2 needs segment 2 (its Start and Finish records are there): damage
  // it is. Increment 1 ends at its Finish record in segment 1: what comes after it is not
  // the increment's, and is not read.
  auto second = RunCli({"check", nodes, "--snapshot", "snap", "--increment", "2"});
  EXPECT_EQ(second.code, 1) << second.out;
  EXPECT_NE(second.err.find("0000000000000002.wal.zip\": corruption"), std::string::npos) << second.err;
  auto first = RunCli({"check", nodes, "--snapshot", "snap", "--increment", "1"});
  EXPECT_EQ(first.code, 0) << first.err << first.out;
  EXPECT_NE(first.out.find("consistent, increment 1 of \"snap\""), std::string::npos) << first.out;
  // The same of the cut named by its whole id, which the increments' metadata gives; a
  // prefix of it reads every node whole (it could begin a cut no metadata names), and so
  // meets the damage.
  auto by_id = RunCli({"check", nodes, "--cut", "097f42b3-1049-4ce0-890b-96e24339b5d6"});
  EXPECT_EQ(by_id.code, 0) << by_id.err << by_id.out;
  auto by_prefix = RunCli({"check", nodes, "--cut", "097f42b3"});
  EXPECT_EQ(by_prefix.code, 1) << by_prefix.err << by_prefix.out;
  EXPECT_NE(by_prefix.err.find("0000000000000002.wal.zip\": corruption"), std::string::npos) << by_prefix.err;
}

// txs and gaps take a snapshot copied off the cluster as check does: one directory per node.
TEST(IgniteSnapshotCli, TxsAndGapsTakeTheSnapshotDirectoriesOfEveryNode) {
  const std::string nodes = kFixtures + "/truncated/nodes";
  const std::vector<std::string> snaps{nodes + "/server-0/work/snapshots/snap", nodes + "/server-1/work/snapshots/snap",
                                       nodes + "/server-2/work/snapshots/snap"};
  std::vector<std::string> txs{"txs", "--json"};
  txs.insert(txs.end(), snaps.begin(), snaps.end());
  auto t = RunCli(txs);
  EXPECT_EQ(t.code, 0) << t.err;
  for (const char* n : {"\"server_0\"", "\"server_1\"", "\"server_2\""}) {
    EXPECT_NE(t.out.find(n), std::string::npos) << n;  // every node's increments read
  }
  std::vector<std::string> gaps{"gaps"};
  gaps.insert(gaps.end(), snaps.begin(), snaps.end());
  auto g = RunCli(gaps);
  EXPECT_EQ(g.code, 0) << g.err;
  EXPECT_NE(g.out.find("partition copies on 3 node(s): 0 with gaps, 0 open gap(s)"), std::string::npos) << g.out;
}

// A summary of an Ignite node would be checked without the increments' metadata and the
// update counters its check needs: refused, and nothing written.
// A summary of each Apache Ignite node carries its kept increments and its copies' applied
// counters: check --summaries says what check of the directories says, byte for byte (the
// fixture's increments and copies are compared; tests/ignite/summary_truth.py holds every
// fixture and live run to it, and shows the verdict changing without either part).
TEST(IgniteSnapshotCli, SummariesOfIgniteNodesCheckAsTheirDirectoriesDo) {
  TempDir tmp;
  std::vector<std::string> dirs, files;
  for (const char* node : {"server-0", "server-1", "server-2"}) {
    dirs.push_back(kFixtures + "/node-stop-kept/nodes/" + node);
    files.push_back(tmp.path() + "/" + node + ".sum");
    auto r = RunCli({"cuts", dirs.back(), "--summary", files.back()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  std::vector<std::string> check{"check", "--json"};
  check.insert(check.end(), dirs.begin(), dirs.end());
  auto want = RunCli(check);
  check.resize(2);
  check.push_back("--summaries");
  check.insert(check.end(), files.begin(), files.end());
  auto got = RunCli(check);
  EXPECT_EQ(got.code, want.code) << got.err;
  EXPECT_EQ(got.out, want.out);
  EXPECT_NE(want.out.find("\"cuts\""), std::string::npos);
}

}  // namespace
