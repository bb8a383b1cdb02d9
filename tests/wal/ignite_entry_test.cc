// The bounds Ignite's DATA_RECORD_V2 and ROLLBACK_TX_RECORD payloads are held to: values
// Ignite cannot write (a partition id past 65535) are corruption, located, so that nothing
// is sized by them downstream (a restore once made a copy of "partition 11 337 739").
// And what the physical records of a partition's meta page say of its update counter.
#include <string>

#include <gtest/gtest.h>

#include "libwal/coding.h"
#include "libwal/ignite_page.h"
#include "libwal/ignite_partition_file.h"
#include "libwal/ignite_record.h"
#include "libwal/record.h"

namespace {

void Version(std::string* s, uint64_t order) {
  wal::PutFixed8(s, 1);
  wal::PutFixed32(s, 1);
  wal::PutFixed32(s, 1);
  wal::PutFixed64(s, order);
}

// One entry of cache 42, key int 7, value long 5, op UPDATE, in `partition`.
std::string DataPayload(uint32_t partition) {
  std::string p;
  wal::PutFixed32(&p, 1);  // entries
  wal::PutFixed64(&p, 1700000000000);
  wal::PutFixed32(&p, 42);  // cache id
  wal::PutFixed32(&p, 5);   // key: length, type regular, int 7
  wal::PutFixed8(&p, 1);
  wal::PutFixed8(&p, 3);
  wal::PutFixed32(&p, 7);
  wal::PutFixed32(&p, 9);  // value: long 5
  wal::PutFixed8(&p, 1);
  wal::PutFixed8(&p, 4);
  wal::PutFixed64(&p, 5);
  wal::PutFixed8(&p, 2);  // UPDATE
  Version(&p, 11);        // near
  Version(&p, 12);        // write
  wal::PutFixed32(&p, partition);
  wal::PutFixed64(&p, 3);  // counter
  wal::PutFixed64(&p, 0);  // expire
  wal::PutFixed8(&p, 1);   // flags
  return p;
}

std::string RollbackPayload(uint32_t partition) {
  std::string p;
  wal::PutFixed32(&p, 42);
  wal::PutFixed32(&p, partition);
  wal::PutFixed64(&p, 3);
  wal::PutFixed64(&p, 2);
  return p;
}

TEST(IgniteEntries, APartitionIdIgniteCannotWriteIsCorruptionInTheDecoderAndTheView) {
  constexpr uint8_t kData = 70, kRollback = 57;
  for (uint32_t p : {0u, 65535u, UINT32_MAX}) {
    wal::AnyRecord a;
    EXPECT_TRUE(wal::DecodeIgnitePayload(kData, DataPayload(p), &a).ok()) << p;
    wal::DataView v;
    EXPECT_TRUE(wal::ViewIgniteData(DataPayload(p), &v)) << p;
    EXPECT_TRUE(wal::DecodeIgnitePayload(kRollback, RollbackPayload(p), &a).ok()) << p;
  }
  for (uint32_t p : {65536u, 11337739u, 0x80000000u}) {
    wal::AnyRecord a;
    wal::Status s = wal::DecodeIgnitePayload(kData, DataPayload(p), &a);
    EXPECT_EQ(s.code(), wal::StatusCode::kCorruption) << p;
    EXPECT_NE(s.message().find("partition id out of bounds"), std::string::npos) << s.message();
    wal::DataView v;
    EXPECT_FALSE(wal::ViewIgniteData(DataPayload(p), &v)) << p;
    s = wal::DecodeIgnitePayload(kRollback, RollbackPayload(p), &a);
    EXPECT_EQ(s.code(), wal::StatusCode::kCorruption) << p;
  }
}

constexpr uint64_t kMetaPageOfPartition5 = (uint64_t{1} << 48) | (uint64_t{5} << 32);  // FLAG_DATA, index 0

// PARTITION_META_PAGE_DELTA_RECORD_V3 of group -7, `page_id`, LWM `counter`.
std::string MetaDeltaV3(uint64_t page_id, uint64_t counter) {
  std::string p;
  wal::PutFixed32(&p, static_cast<uint32_t>(-7));
  wal::PutFixed64(&p, page_id);
  wal::PutFixed64(&p, counter);
  wal::PutFixed64(&p, 0);   // global remove id
  wal::PutFixed32(&p, 12);  // size
  wal::PutFixed64(&p, 0);   // counters page
  wal::PutFixed8(&p, 1);    // OWNING
  wal::PutFixed32(&p, 0);   // allocated index candidate
  wal::PutFixed64(&p, 0);   // gaps link
  wal::PutFixed32(&p, 0);   // encrypted page index, count
  wal::PutFixed32(&p, 0);
  return p;
}

TEST(IgnitePartitionCounters, AMetaDeltaGivesItsGroupPartitionsLwm) {
  using Kind = wal::IgnitePartitionCounter::Kind;
  auto c = wal::ReadIgnitePartitionCounter(67, MetaDeltaV3(kMetaPageOfPartition5, 77));
  EXPECT_EQ(c.kind, Kind::kLwm);
  EXPECT_EQ(c.group, -7);
  EXPECT_EQ(c.partition, 5u);
  EXPECT_EQ(c.lwm, 77u);
  // Not a partition's meta page (a data page, index 3), a payload of another length, the
  // index partition, or another type: nothing.
  EXPECT_EQ(wal::ReadIgnitePartitionCounter(67, MetaDeltaV3(kMetaPageOfPartition5 | 3, 77)).kind, Kind::kNone);
  EXPECT_EQ(wal::ReadIgnitePartitionCounter(67, MetaDeltaV3(kMetaPageOfPartition5, 77) + "x").kind, Kind::kNone);
  EXPECT_EQ(wal::ReadIgnitePartitionCounter(67, MetaDeltaV3((uint64_t{1} << 48) | (uint64_t{65535} << 32), 77)).kind,
            Kind::kNone);
  EXPECT_EQ(wal::ReadIgnitePartitionCounter(70, MetaDeltaV3(kMetaPageOfPartition5, 77)).kind, Kind::kNone);
  // PARTITION_DESTROY: group, partition.
  std::string destroy;
  wal::PutFixed32(&destroy, 9);
  wal::PutFixed32(&destroy, 4);
  c = wal::ReadIgnitePartitionCounter(43, destroy);
  EXPECT_EQ(c.kind, Kind::kDestroyed);
  EXPECT_EQ(c.group, 9);
  EXPECT_EQ(c.partition, 4u);
}

TEST(IgnitePartitionCounters, APageImageOfAPartitionMetaPageGivesItsLwm) {
  const std::string dir = std::string(WALCUT_SOURCE_DIR) +
                          "/testdata/ignite/full/nodes/server-0/work/snapshots/snap/db/server_0/cache-bank/";
  uint64_t seen = 0;
  for (int part = 0; part < 64; ++part) {
    auto f = wal::IgnitePartitionFile::Open(dir + "part-" + std::to_string(part) + ".bin");
    if (!f.ok()) continue;
    wal::ignite_page::PartitionMeta meta;
    std::string why;
    ASSERT_TRUE(wal::ignite_page::ParsePartitionMeta(f->Page(0), &meta, &why)) << why;
    const uint64_t page_id = wal::ignite_page::ParsePageHeader(f->Page(0)).page_id;
    std::string record;
    wal::PutFixed32(&record, 123);
    wal::PutFixed64(&record, page_id);
    record += std::string(f->Page(0));
    auto c = wal::ReadIgnitePartitionCounter(1, record);
    ASSERT_EQ(c.kind, wal::IgnitePartitionCounter::Kind::kLwm) << part;
    EXPECT_EQ(c.partition, static_cast<uint32_t>(part));
    EXPECT_EQ(c.lwm, meta.update_counter);
    seen += c.lwm;
    // The same page image under a data page's id says nothing.
    std::string other;
    wal::PutFixed32(&other, 123);
    wal::PutFixed64(&other, page_id | 1);
    other += std::string(f->Page(0));
    EXPECT_EQ(wal::ReadIgnitePartitionCounter(1, other).kind, wal::IgnitePartitionCounter::Kind::kNone);
  }
  EXPECT_GT(seen, 0u);  // the bank's partitions were written to
}

}  // namespace
