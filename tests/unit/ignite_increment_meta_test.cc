// Apache Ignite's increment metadata (.smf, Java serialization) as written by Ignite 2.17
// (testdata/ignite), and how the kept increments decide a cut's status.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "libcut/kept_increments.h"
#include "libwal/file_io.h"
#include "libwal/ignite_increment_meta.h"

namespace {

namespace fs = std::filesystem;

const std::string kWork = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes/server-1/work";
const std::string kSmf = kWork + "/snapshots/snap/increments/0000000000000002/server_1.smf";

std::string Bytes(const std::string& path) { return wal::ReadFileToString(path, 1 << 20).value(); }

TEST(IgniteIncrementMeta, RealMetadataReadsEveryField) {
  auto m = wal::ParseIgniteIncrementMeta(Bytes(kSmf));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->request_id.ToString(), "4b0d39fd-a1fb-4a49-8dc7-fde2216d1082");
  EXPECT_EQ(m->snapshot, "snap");
  EXPECT_EQ(m->index, 2u);
  EXPECT_EQ(m->consistent_id, "server-1");
  EXPECT_EQ(m->folder, "server_1");
  EXPECT_GT(m->time_ms, 1700000000000u);
}

TEST(IgniteIncrementMeta, FullSnapshotMetadataIsNoIncrement) {
  auto m = wal::ParseIgniteIncrementMeta(Bytes(kWork + "/snapshots/snap/server_1.smf"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "not an IncrementalSnapshotMetadata");
}

TEST(IgniteIncrementMeta, EveryTruncationAndFlipIsRefusedOrReadNeverACrash) {
  const std::string bytes = Bytes(kSmf);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(wal::ParseIgniteIncrementMeta(std::string_view(bytes).substr(0, n)).ok()) << n;
  }
  size_t refused = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5A);
    if (!wal::ParseIgniteIncrementMeta(flipped).ok()) ++refused;
  }
  EXPECT_GT(refused, bytes.size() / 4);
}

TEST(IgniteIncrementMeta, TheCutIdIsTheRequestIdAsJavaWritesIt) {
  std::string bytes = Bytes(kSmf);
  // java.util.UUID's values: leastSigBits then mostSigBits, big-endian; change mostSigBits' first byte.
  const std::string msb_first("\x4b\x0d\x39\xfd", 4);
  const size_t msb = bytes.find(msb_first);
  ASSERT_NE(msb, std::string::npos);
  bytes[msb] = '\x4c';
  auto m = wal::ParseIgniteIncrementMeta(bytes);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->request_id.ToString(), "4c0d39fd-a1fb-4a49-8dc7-fde2216d1082");
}

TEST(IgniteIncrementMeta, ANodeKeepsEveryIncrementItsFilesName) {
  auto read = wal::ReadIgniteIncrements(kWork, "server_1");
  EXPECT_TRUE(read.unreadable.empty());
  ASSERT_EQ(read.kept.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(read.kept[i].meta.index, i + 1);
}

TEST(IgniteIncrementMeta, AFileThatIsNotWhatItsPlaceSaysIsUnreadable) {
  const fs::path tmp = fs::path(testing::TempDir()) / "smf-moved";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  fs::copy(kWork + "/snapshots", tmp / "snapshots", fs::copy_options::recursive);
  fs::copy_file(tmp / "snapshots/snap/increments/0000000000000002/server_1.smf",
                tmp / "snapshots/snap/increments/0000000000000001/server_1.smf", fs::copy_options::overwrite_existing);
  {
    std::ofstream cut_short(tmp / "snapshots/snap/increments/0000000000000003/server_1.smf",
                            std::ios::binary | std::ios::trunc);
    cut_short << Bytes(kSmf).substr(0, 100);
  }
  auto read = wal::ReadIgniteIncrements(tmp.string(), "server_1");
  ASSERT_EQ(read.kept.size(), 1u);
  EXPECT_EQ(read.kept[0].meta.index, 2u);
  ASSERT_EQ(read.unreadable.size(), 2u);
  EXPECT_NE(read.unreadable[0].find("0000000000000001/server_1.smf: names increment 2 of snapshot 'snap'"),
            std::string::npos)
      << read.unreadable[0];
  EXPECT_NE(read.unreadable[1].find("0000000000000003/server_1.smf: offset 100: "), std::string::npos)
      << read.unreadable[1];
  fs::remove_all(tmp);
}

cut::NodeKept Node(std::string name, std::vector<cut::KeptIncrement> kept, std::vector<std::string> unreadable = {}) {
  cut::NodeKept n;
  n.node = std::move(name);
  n.kept = std::move(kept);
  n.unreadable = std::move(unreadable);
  return n;
}

cut::ClusterReport OneConsistentCut(const wal::Uuid& id) {
  cut::ClusterReport r;
  r.cuts.emplace_back();
  r.cuts[0].id = id;
  r.cuts[0].base = "snap";
  r.cuts[0].increment = 7;
  return r;
}

// Two consistent cuts, each with its Finish record on node "a" where the WAL says.
cut::ClusterReport TwoCutsWithFinish(const wal::Uuid& first, const wal::Uuid& second) {
  cut::ClusterReport r;
  uint32_t offset = 1000;
  for (const auto& id : {first, second}) {
    cut::CutReport c;
    c.id = id;
    c.base = "snap";
    cut::CutNodeRow row;
    row.node = "a";
    row.has_start = row.has_finish = true;
    row.start = {0, offset};
    row.finish = {0, offset + 100};
    offset += 1000;
    c.nodes.push_back(row);
    r.cuts.push_back(c);
  }
  return r;
}

TEST(KeptIncrements, MetadataWhoseFinishPointerIsAnotherCutsFinishIsUnreadable) {
  const wal::Uuid first{1, 1}, second{2, 2};
  // The .smf of the second cut says rqId first, but points at the second's Finish record:
  // a rewritten rqId. The first cut, whose own metadata is sound, keeps its increment.
  auto r = TwoCutsWithFinish(first, second);
  cut::ApplyKeptIncrements({Node("a", {{first, "snap", 1, wal::Pointer{0, 1100}, "1/a.smf"},
                                       {first, "snap", 2, wal::Pointer{0, 2100}, "2/a.smf"}})},
                           {"a"}, &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, cut::Kind::kUnreadableMeta);
  const std::string want = "2/a.smf: rqId is " + first.ToString() + ", whose Finish record is at " +
                           wal::Pointer{0, 1100}.ToString() + ", but its incSnpRec " +
                           wal::Pointer{0, 2100}.ToString() + " is the Finish record of cut " + second.ToString();
  EXPECT_EQ(r.problems[0].detail, want);
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kConsistent);
  EXPECT_EQ(r.cuts[0].increment, 1u);
  EXPECT_EQ(r.cuts[1].status, cut::CutStatus::kUnverifiable);
  // Sound, both keep their increments.
  auto sound = TwoCutsWithFinish(first, second);
  cut::ApplyKeptIncrements({Node("a", {{first, "snap", 1, wal::Pointer{0, 1100}, "1/a.smf"},
                                       {second, "snap", 2, wal::Pointer{0, 2100}, "2/a.smf"}})},
                           {"a"}, &sound);
  EXPECT_TRUE(sound.problems.empty());
  EXPECT_EQ(sound.cuts[1].status, cut::CutStatus::kConsistent);
  EXPECT_EQ(sound.cuts[1].increment, 2u);
}

TEST(KeptIncrements, MetadataThatMovesItsCutsFinishIsUnreadable) {
  const wal::Uuid first{1, 1}, second{2, 2};
  auto r = TwoCutsWithFinish(first, second);
  cut::ApplyKeptIncrements({Node("a", {{first, "snap", 1, wal::Pointer{0, 1100}, "1/a.smf"},
                                       {second, "snap", 2, wal::Pointer{0, 2222}, "2/a.smf"}})},
                           {"a"}, &r);
  ASSERT_EQ(r.problems.size(), 1u);
  const std::string want =
      "2/a.smf: incSnpRec is " + wal::Pointer{0, 2222}.ToString() + ", but the Finish record of its cut";
  EXPECT_NE(r.problems[0].detail.find(want), std::string::npos) << r.problems[0].detail;
  EXPECT_EQ(r.cuts[1].status, cut::CutStatus::kUnverifiable);
}

TEST(KeptIncrements, MetadataNamingAnotherSnapshotThanTheWalIsUnreadable) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  cut::ApplyKeptIncrements({Node("a", {{id, "other\n", 3, std::nullopt, "3/a.smf"}})}, {"a"}, &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].detail, "3/a.smf: snpName is 'other\\x0a', but its cut " + id.ToString() +
                                      " follows the full snapshot 'snap' in the WAL");
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kUnverifiable);
}

TEST(KeptIncrements, NodesWhoseMetadataGiveOneCutTwoIndexesAreUnreadable) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  cut::ApplyKeptIncrements(
      {Node("a", {{id, "snap", 3, std::nullopt, "3/a.smf"}}), Node("b", {{id, "snap", 4, std::nullopt, "4/b.smf"}})},
      {"a", "b"}, &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].node, "b");
  EXPECT_EQ(r.problems[0].detail, "4/b.smf: increment 4 of 'snap', but 3/a.smf names its cut increment 3 of 'snap'");
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kUnverifiable);
}

TEST(KeptIncrements, ACutEveryNodeKeepsTakesItsSnapshotAndIndex) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  cut::ApplyKeptIncrements(
      {Node("a", {{id, "snap", 3, std::nullopt, ""}}), Node("b", {{id, "snap", 3, std::nullopt, ""}})}, {"a", "b"}, &r);
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kConsistent);
  EXPECT_EQ(r.cuts[0].base, "snap");
  EXPECT_EQ(r.cuts[0].increment, 3u);
  EXPECT_TRUE(r.problems.empty());
}

TEST(KeptIncrements, ACutOneNodeDoesNotKeepIsNotKept) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  cut::ApplyKeptIncrements({Node("a", {{id, "snap", 3, std::nullopt, ""}}), Node("b", {})}, {"a", "b"}, &r);
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kIncomplete);
  EXPECT_FALSE(r.cuts[0].increment);
  ASSERT_EQ(r.cuts[0].violations.size(), 1u);
  EXPECT_EQ(r.cuts[0].violations[0].kind, cut::Kind::kNotKept);
  EXPECT_EQ(r.cuts[0].violations[0].nodes, std::vector<std::string>{"b"});
}

TEST(KeptIncrements, AnUnreadableFileMakesACutItMayNameUnverifiableAndIsAProblem) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  r.problems.push_back({"c", cut::Kind::kReadErrors, "damage"});
  cut::ApplyKeptIncrements({Node("b", {}, {"b.smf: cut short"}), Node("a", {{id, "snap", 3, std::nullopt, ""}})},
                           {"a", "b", "c"}, &r);
  EXPECT_EQ(r.cuts[0].status, cut::CutStatus::kUnverifiable);
  ASSERT_EQ(r.cuts[0].violations.size(), 1u);
  EXPECT_EQ(r.cuts[0].violations[0].kind, cut::Kind::kUnreadableMeta);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].node, "b");  // in node order
  EXPECT_EQ(r.problems[0].kind, cut::Kind::kUnreadableMeta);
  EXPECT_EQ(r.problems[0].detail, "b.smf: cut short");
  // A cut the node's readable files name is not in doubt.
  auto named = OneConsistentCut(id);
  cut::ApplyKeptIncrements({Node("b", {{id, "snap", 3, std::nullopt, ""}}, {"b.smf: cut short"})}, {"b"}, &named);
  EXPECT_EQ(named.cuts[0].status, cut::CutStatus::kConsistent);
}

TEST(KeptIncrements, ABaselineNodeOfTheSnapshotThatIsNotGivenIsAProblem) {
  const wal::Uuid id{1, 2};
  auto r = OneConsistentCut(id);
  cut::NodeKept a = Node("server_0", {{id, "snap", 1, std::nullopt, ""}});
  a.consistent_id = "server-0";
  a.baseline = {"server-0", "server-1", "server-2"};
  cut::NodeKept b = Node("server_1", {{id, "snap", 1, std::nullopt, ""}});  // its own id unknown: matched by its folder
  cut::ApplyKeptIncrements({a, b}, {"server_0", "server_1"}, &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].node, "server-2");
  EXPECT_EQ(r.problems[0].kind, cut::Kind::kNotGiven);
}

TEST(IgniteIncrementMeta, TheFullSnapshotMetadataNamesTheBaseline) {
  auto m = wal::ParseIgniteSnapshotMeta(Bytes(kWork + "/snapshots/snap/server_1.smf"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->snapshot, "snap");
  EXPECT_EQ(m->consistent_id, "server-1");
  EXPECT_EQ(m->folder, "server_1");
  EXPECT_EQ(m->baseline, (std::vector<std::string>{"server-0", "server-1", "server-2"}));
  auto read = wal::ReadIgniteIncrements(kWork, "server_1");
  EXPECT_EQ(read.consistent_id, "server-1");
  EXPECT_EQ(read.baseline, m->baseline);
}

}  // namespace
