// The cluster file a restore of Apache Ignite's WAL derives (each cache with a placement of
// its own), and verification against it: copies that agree pass, a copy that differs or
// lies where its cache's placement puts none is found; copies of an ATOMIC cache that
// differ are a difference, as Ignite's own restore leaves them.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "libcut/cluster_file.h"
#include "libwal/file_io.h"
#include "recovery/partition_file.h"
#include "recovery/restore_job.h"
#include "recovery/verify.h"

namespace recovery {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kBank = 3016252;  // an Ignite cache id: wider than 5 digits
constexpr uint32_t kVault = 111981106;

PartitionFile Copy(uint32_t cache, uint32_t partition, std::string value) {
  PartitionFile f;
  f.cache_id = cache;
  f.partition = partition;
  f.lwm = f.hwm = 3;
  f.entries.push_back({std::string("\x01\x03\x05\x00\x00\x00", 6), std::move(value), 3});
  return f;
}

struct Fixture {
  RestorePlan plan;
  RestoreManifest manifest;
};

// Three nodes: bank partition 0 on a and b, vault partition 1 on all three.
Fixture ThreeNodes() {
  Fixture x;
  for (const char* n : {"server_0", "server_1", "server_2"}) {
    NodePlan np;
    np.node = n;
    np.ignite = true;
    x.plan.nodes.push_back(np);
    ManifestNode m;
    m.node = n;
    x.manifest.nodes.push_back(m);
  }
  x.manifest.ignite = true;
  for (size_t i = 0; i < 2; ++i) x.manifest.nodes[i].files.push_back({PartitionFileName(kBank, 0), 0, 3, 0});
  for (size_t i = 0; i < 3; ++i) x.manifest.nodes[i].files.push_back({PartitionFileName(kVault, 1), 0, 3, 0});
  return x;
}

TEST(IgniteRestore, DerivedClusterGivesEachCacheItsOwnPlacementAndParsesBack) {
  Fixture x = ThreeNodes();
  cut::ClusterInfo info = DeriveIgniteCluster(x.plan, x.manifest, RestoreJob{});
  ASSERT_EQ(info.caches.size(), 2u);
  EXPECT_EQ(info.caches[0].id, kBank);
  EXPECT_EQ(info.caches[0].partitions, 1u);
  EXPECT_EQ(info.caches[0].backups, 1u);
  EXPECT_EQ(info.caches[0].assignment, (std::vector<std::vector<std::string>>{{"server_0", "server_1"}}));
  EXPECT_EQ(info.caches[1].partitions, 2u);
  EXPECT_EQ(info.caches[1].backups, 2u);
  EXPECT_TRUE(info.caches[1].assignment[0].empty());
  ASSERT_EQ(info.versions.size(), 1u);
  EXPECT_EQ(info.versions[0].version, 0u);
  EXPECT_NE(info.nodes[0].id, info.nodes[1].id);
  auto back = cut::ParseClusterFile(cut::EncodeClusterFile(info), "cluster.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->caches[0].assignment, info.caches[0].assignment);
  EXPECT_EQ(back->caches[1].assignment, info.caches[1].assignment);
}

TEST(IgniteRestore, ACacheAssignmentNamingNoServerOrOfTheWrongLengthIsRefused) {
  Fixture x = ThreeNodes();
  std::string text = cut::EncodeClusterFile(DeriveIgniteCluster(x.plan, x.manifest, RestoreJob{}));
  std::string bad = text;
  bad.replace(bad.find("\"server_1\"\n"), 10, "\"nobody\"");
  auto parsed = cut::ParseClusterFile(bad, "cluster.json");
  EXPECT_EQ(parsed.status().code(), wal::StatusCode::kCorruption) << bad;
  EXPECT_NE(parsed.status().message().find("assignment"), std::string::npos) << parsed.status().message();
}

class IgniteVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("walcut-ignite-verify-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Fixture x = ThreeNodes();
    ASSERT_TRUE(wal::WriteNewFileSynced((dir_ / "cluster.json").string(),
                                        cut::EncodeClusterFile(DeriveIgniteCluster(x.plan, x.manifest, RestoreJob{})))
                    .ok());
    for (size_t i = 0; i < 3; ++i) {
      const std::string data = (dir_ / x.plan.nodes[i].node / "data").string();
      fs::create_directories(data);
      if (i < 2) {
        ASSERT_TRUE(WritePartitionFile(data, Copy(kBank, 0, "bank"), false).ok());
      }
      ASSERT_TRUE(WritePartitionFile(data, Copy(kVault, 1, "vault"), false).ok());
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(IgniteVerify, CopiesThatAgreePass) {
  auto report = VerifyDirectory(dir_.string());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->conflicts.empty());
  EXPECT_EQ(report->partitions, 2u);
}

TEST_F(IgniteVerify, ACopyThatDiffersIsAContentConflict) {
  ASSERT_TRUE(WritePartitionFile((dir_ / "server_1" / "data").string(), Copy(kBank, 0, "other"), false).ok());
  auto report = VerifyDirectory(dir_.string());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->conflicts.size(), 1u);
  EXPECT_EQ(report->conflicts[0].kind, ConflictKind::kContent);
  EXPECT_EQ(report->conflicts[0].cache, kBank);
}

TEST_F(IgniteVerify, CopiesOfAnAtomicCacheThatDifferAreADifferenceNotAConflict) {
  // The cluster file written as a restore writes it when the snapshot's configuration
  // says bank is ATOMIC.
  Fixture x = ThreeNodes();
  RestoreJob job;
  job.cache_names[kBank] = "bank";
  job.atomic_caches.insert(kBank);
  const cut::ClusterInfo info = DeriveIgniteCluster(x.plan, x.manifest, job);
  EXPECT_EQ(info.caches[0].name, "bank");
  EXPECT_TRUE(info.caches[0].atomic);
  EXPECT_FALSE(info.caches[1].atomic);
  ASSERT_TRUE(wal::WriteFileAtomically((dir_ / "cluster.json").string(), cut::EncodeClusterFile(info)).ok());
  ASSERT_TRUE(WritePartitionFile((dir_ / "server_1" / "data").string(), Copy(kBank, 0, "other"), false).ok());
  auto report = VerifyDirectory(dir_.string());
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->conflicts.empty());
  ASSERT_EQ(report->atomic_differences.size(), 1u);
  EXPECT_EQ(report->atomic_differences[0].kind, ConflictKind::kContent);
  // The transactional cache's copies are held to agreeing as before.
  ASSERT_TRUE(WritePartitionFile((dir_ / "server_2" / "data").string(), Copy(kVault, 1, "other"), false).ok());
  report = VerifyDirectory(dir_.string());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->conflicts.size(), 1u);
  EXPECT_EQ(report->conflicts[0].kind, ConflictKind::kContent);
  EXPECT_EQ(report->conflicts[0].cache, kVault);
}

TEST_F(IgniteVerify, ACopyWhereItsCachePlacesNoneIsUnexpected) {
  // server_2 holds vault partition 1 (so the versions' assignment names it for partition
  // 1), but the bank cache's own placement does not give it bank partition 0.
  ASSERT_TRUE(WritePartitionFile((dir_ / "server_2" / "data").string(), Copy(kBank, 0, "bank"), false).ok());
  auto report = VerifyDirectory(dir_.string());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->conflicts.size(), 1u);
  EXPECT_EQ(report->conflicts[0].kind, ConflictKind::kUnexpectedCopy);
}

}  // namespace
}  // namespace recovery
