#include <gtest/gtest.h>

#include "recovery/partition_file.h"

namespace recovery {
namespace {

PartitionFile Sample() {
  PartitionFile f;
  f.cache_id = 1;
  f.partition = 7;
  f.lwm = 12;
  f.hwm = 12;
  f.entries = {{"acct-1", "990", 3}, {"acct-2", "1010", 12}, {"acct-9", "", 5}};
  return f;
}

TEST(PartitionFile, RoundTrips) {
  auto bytes = EncodePartitionFile(Sample());
  auto back = DecodePartitionFile(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Sample());
}

TEST(PartitionFile, EveryByteChangeAndTruncationIsCorruption) {
  const std::string bytes = EncodePartitionFile(Sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x04;
    EXPECT_EQ(DecodePartitionFile(bad).status().code(), wal::StatusCode::kCorruption) << i;
    EXPECT_EQ(DecodePartitionFile(bytes.substr(0, i)).status().code(), wal::StatusCode::kCorruption) << i;
  }
}

TEST(PartitionFile, NamesParseBack) {
  EXPECT_EQ(PartitionFileName(1, 7), "part-00001-00007.dat");
  uint32_t c = 0, p = 0;
  ASSERT_TRUE(ParsePartitionFileName("part-00001-00007.dat", &c, &p));
  EXPECT_EQ(c, 1u);
  EXPECT_EQ(p, 7u);
  EXPECT_FALSE(ParsePartitionFileName("part-00001-00007.dat.tmp", &c, &p));
}

TEST(PartitionFile, WideIgniteCacheIdsParseBackAndOnlyOneNameIsAFile) {
  EXPECT_EQ(PartitionFileName(3016252, 31), "part-3016252-00031.dat");
  EXPECT_EQ(PartitionFileName(4294967295u, 65535), "part-4294967295-65535.dat");
  uint32_t c = 0, p = 0;
  ASSERT_TRUE(ParsePartitionFileName("part-4294967295-65535.dat", &c, &p));
  EXPECT_EQ(c, 4294967295u);
  EXPECT_EQ(p, 65535u);
  ASSERT_TRUE(ParsePartitionFileName("part-3016252-00031.dat", &c, &p));
  EXPECT_EQ(c, 3016252u);
  EXPECT_FALSE(ParsePartitionFileName("part-4294967296-00000.dat", &c, &p));  // above 32 bits
  EXPECT_FALSE(ParsePartitionFileName("part-000001-00007.dat", &c, &p));      // a second name of part-00001-00007
  EXPECT_FALSE(ParsePartitionFileName("part-0001-00007.dat", &c, &p));
  EXPECT_FALSE(ParsePartitionFileName("part-00001-0x007.dat", &c, &p));
  EXPECT_FALSE(ParsePartitionFileName("part-0000100007.dat", &c, &p));
}

TEST(PartitionFile, ContentHashIgnoresCountersButNotValues) {
  PartitionFile a = Sample(), b = Sample();
  b.entries[0].counter = 99;
  EXPECT_EQ(ContentHash(a), ContentHash(b));
  b.entries[0].value = "991";
  EXPECT_NE(ContentHash(a), ContentHash(b));
}

}  // namespace
}  // namespace recovery
