// The bounds Ignite's DATA_RECORD_V2 and ROLLBACK_TX_RECORD payloads are held to: values
// Ignite cannot write (a partition id past 65535) are corruption, located, so that nothing
// is sized by them downstream (a restore once made a copy of "partition 11 337 739").
#include <string>

#include <gtest/gtest.h>

#include "libwal/coding.h"
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
  wal::PutFixed32(&p, 1);        // entries
  wal::PutFixed64(&p, 1700000000000);
  wal::PutFixed32(&p, 42);       // cache id
  wal::PutFixed32(&p, 5);        // key: length, type regular, int 7
  wal::PutFixed8(&p, 1);
  wal::PutFixed8(&p, 3);
  wal::PutFixed32(&p, 7);
  wal::PutFixed32(&p, 9);        // value: long 5
  wal::PutFixed8(&p, 1);
  wal::PutFixed8(&p, 4);
  wal::PutFixed64(&p, 5);
  wal::PutFixed8(&p, 2);         // UPDATE
  Version(&p, 11);               // near
  Version(&p, 12);               // write
  wal::PutFixed32(&p, partition);
  wal::PutFixed64(&p, 3);        // counter
  wal::PutFixed64(&p, 0);        // expire
  wal::PutFixed8(&p, 1);         // flags
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

}  // namespace
