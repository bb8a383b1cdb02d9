// The replay of an Apache Ignite increment (recovery/ignite_restore.h) from the records the
// check kept as it read the WAL gives what a second reading of the WAL gives, byte for
// byte; and records that are not all there (past their budget, or cut short before the
// Finish record) are never taken for the WAL: the replay then reads the WAL itself.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "libwal/file_io.h"
#include "libwal/ignite_increment_meta.h"
#include "libwal/wal_reader.h"
#include "recovery/ignite_restore.h"

namespace recovery {
namespace {

const std::string kIgniteFixtures = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite";

// Node server-0's plan of increment `k` of `snapshot` in fixture `fixture`; with
// `make_kept`, records kept of its WAL as the check's reading hands them over.
NodePlan PlanOf(const std::string& fixture, const std::string& snapshot, uint32_t k,
                const std::function<std::unique_ptr<KeptRecords>(const NodePlan&)>& make_kept = nullptr,
                std::shared_ptr<const KeptRecords>* kept_out = nullptr) {
  const std::string work = kIgniteFixtures + "/" + fixture + "/nodes/server-0/work";
  const std::string snap = work + "/snapshots/" + snapshot;
  NodePlan np;
  np.node = "server_0";
  // As the check reads it: the archive, the work folder, then the increments' copies.
  wal::WalLocation live(std::vector<std::string>{work + "/db/wal/archive/server_0", work + "/db/wal/server_0"});
  for (const auto& inc : std::filesystem::directory_iterator(snap + "/increments")) {
    live.dirs.push_back(inc.path().string() + "/db/wal/server_0");
  }
  std::sort(live.dirs.begin() + 2, live.dirs.end());
  EXPECT_TRUE(PlaceIgniteSnapshotNode(snap, snapshot, k, live, &np).ok());
  auto bytes = wal::ReadFileToString(snap + "/increments/" + fmt::format("{:016d}", k) + "/server_0.smf", 1 << 20);
  EXPECT_TRUE(bytes.ok());
  auto meta = wal::ParseIgniteIncrementMeta(*bytes);
  EXPECT_TRUE(meta.ok());
  np.cut_id = meta->request_id;
  np.finish = meta->finish.value_or(wal::Pointer{});
  // The Finish record's sets, and the records as the check's reading sees them.
  std::unique_ptr<KeptRecords> kept = make_kept ? make_kept(np) : nullptr;
  wal::ReaderOptions ro;
  ro.light = true;
  auto reader = wal::WalReader::OpenDirectory(np.wal, ro, nullptr);
  EXPECT_TRUE(reader.ok());
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    if (kept) kept->Add(*r);
    if (r->type == static_cast<uint8_t>(wal::RecordType::kCutFinish) && r->decoded.cut_finish.cut_id == np.cut_id) {
      np.before = r->decoded.cut_finish.before;
      np.after = r->decoded.cut_finish.after;
    }
  }
  if (kept_out != nullptr) *kept_out = std::move(kept);
  return np;
}

void ExpectSameResult(const NodeResult& a, const NodeResult& b) {
  EXPECT_EQ(a.entries, b.entries);
  EXPECT_EQ(a.txs_applied, b.txs_applied);
  EXPECT_EQ(a.txs_skipped, b.txs_skipped);
  EXPECT_EQ(a.wal_bytes, b.wal_bytes);
  EXPECT_EQ(a.read_from, b.read_from);
  EXPECT_EQ(a.read_to, b.read_to);
  EXPECT_EQ(a.warnings, b.warnings);
  ASSERT_EQ(a.partitions.size(), b.partitions.size());
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    const PartitionFile& x = a.partitions[i];
    const PartitionFile& y = b.partitions[i];
    EXPECT_EQ(x.cache_id, y.cache_id);
    EXPECT_EQ(x.partition, y.partition);
    EXPECT_EQ(x.lwm, y.lwm);
    ASSERT_EQ(x.entries.size(), y.entries.size()) << "cache " << x.cache_id << " partition " << x.partition;
    for (size_t j = 0; j < x.entries.size(); ++j) {
      EXPECT_EQ(x.entries[j].key, y.entries[j].key);
      EXPECT_EQ(x.entries[j].value, y.entries[j].value);
      EXPECT_EQ(x.entries[j].counter, y.entries[j].counter);
    }
  }
}

// The plan's replay from the WAL, then with `kept` handed to it: the same result.
void ExpectKeptReplaysAsTheWal(NodePlan plan, std::shared_ptr<const KeptRecords> kept) {
  plan.kept = nullptr;
  auto from_wal = RestoreIgniteIncrement(plan, nullptr);
  ASSERT_TRUE(from_wal.ok()) << from_wal.status().message();
  plan.kept = std::move(kept);
  auto with_kept = RestoreIgniteIncrement(plan, nullptr);
  ASSERT_TRUE(with_kept.ok()) << with_kept.status().message();
  ExpectSameResult(*from_wal, *with_kept);
}

struct Increment {
  const char* fixture;
  const char* snapshot;
  uint32_t k;
};

class KeptReplay : public testing::TestWithParam<Increment> {};

TEST_P(KeptReplay, GivesWhatReadingTheWalAgainGives) {
  const Increment& inc = GetParam();
  std::shared_ptr<const KeptRecords> kept;
  NodePlan plan = PlanOf(
      inc.fixture, inc.snapshot, inc.k,
      [](const NodePlan& np) {
        return std::make_unique<KeptRecords>(np.from, np.cut_id, KeptRecords::Budget(64 << 20));
      },
      &kept);
  ASSERT_TRUE(kept->complete());
  auto from_wal = RestoreIgniteIncrement(plan, nullptr);
  ASSERT_TRUE(from_wal.ok()) << from_wal.status().message();
  plan.kept = kept;
  plan.wal = wal::WalLocation(std::string(WALCUT_SOURCE_DIR) + "/no-such-wal");  // not read again
  auto from_kept = RestoreIgniteIncrement(plan, nullptr);
  ASSERT_TRUE(from_kept.ok()) << from_kept.status().message();
  EXPECT_GT(from_wal->entries, 0u);
  ExpectSameResult(*from_wal, *from_kept);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, KeptReplay,
                         testing::Values(Increment{"full", "snap", 3}, Increment{"full", "snap", 1},
                                         Increment{"rebalance", "snap2", 2}, Increment{"truncated", "snap", 4},
                                         Increment{"rebalance", "snap", 1}),
                         [](const testing::TestParamInfo<Increment>& i) {
                           return std::string(i.param.fixture) + "_" + i.param.snapshot + "_" +
                                  std::to_string(i.param.k);
                         });

TEST(KeptRecords, PastTheirBudgetAreLetGoAndGiveTheirBytesBack) {
  auto budget = KeptRecords::Budget(4096);
  std::shared_ptr<const KeptRecords> kept;
  NodePlan plan = PlanOf(
      "full", "snap", 3, [&](const NodePlan& np) { return std::make_unique<KeptRecords>(np.from, np.cut_id, budget); },
      &kept);
  EXPECT_FALSE(kept->complete());
  EXPECT_EQ(budget->load(), 4096);
  // The replay then reads the WAL: the same result as without them.
  ExpectKeptReplaysAsTheWal(plan, kept);
  kept.reset();
  EXPECT_EQ(budget->load(), 4096);
}

TEST(KeptRecords, ARecordOfNoBytesFirstIsKept) {
  // A Start record first (metadata whose pointer is not the snapshot's record): nothing to
  // copy, and no chunk yet.
  KeptRecords kept(wal::Pointer{0, 0}, wal::Uuid{1, 2}, KeptRecords::Budget(8 << 20));
  wal::Record r;
  r.type = static_cast<uint8_t>(wal::RecordType::kCutStart);
  r.ptr = wal::Pointer{0, 100};
  r.size = 37;
  r.decoded.cut_start.cut_id = wal::Uuid{1, 2};
  kept.Add(r);
  r.type = static_cast<uint8_t>(wal::RecordType::kCutFinish);
  r.ptr = wal::Pointer{0, 137};
  r.decoded.cut_finish.cut_id = wal::Uuid{1, 2};
  kept.Add(r);
  EXPECT_TRUE(kept.complete());
  size_t n = 0;
  EXPECT_TRUE(kept.ForEach(
                      [&](const wal::Record&, uint64_t) {
                        ++n;
                        return wal::Status::Ok();
                      },
                      nullptr)
                  .ok());
  EXPECT_EQ(n, 2u);
}

TEST(KeptRecords, WithoutTheFinishRecordAreNotComplete) {
  // Records of another cut (a nil id is none of the WAL's) never finish.
  std::shared_ptr<const KeptRecords> kept;
  PlanOf(
      "full", "snap", 2,
      [](const NodePlan& np) {
        return std::make_unique<KeptRecords>(np.from, wal::Uuid{}, KeptRecords::Budget(64 << 20));
      },
      &kept);
  EXPECT_FALSE(kept->complete());
}

TEST(KeptRecords, OfAnotherRangeAreNotTakenForThePlans) {
  // Kept for increment 1, handed to the plan of increment 3: the replay reads the WAL.
  std::shared_ptr<const KeptRecords> kept1;
  PlanOf(
      "full", "snap", 1,
      [](const NodePlan& np) {
        return std::make_unique<KeptRecords>(np.from, np.cut_id, KeptRecords::Budget(64 << 20));
      },
      &kept1);
  ASSERT_TRUE(kept1->complete());
  ExpectKeptReplaysAsTheWal(PlanOf("full", "snap", 3), kept1);
}

}  // namespace
}  // namespace recovery
