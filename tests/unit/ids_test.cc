#include <gtest/gtest.h>

#include "libwal/coding.h"
#include "libwal/ids.h"

namespace wal {
namespace {

TEST(Pointer, PrintsAndParsesSegColonOffset) {
  Pointer p{12, 4096};
  EXPECT_EQ(p.ToString(), "12:4096");
  auto back = Pointer::Parse("12:4096");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, p);
  auto hex = Pointer::Parse("0xc:0x1000");
  ASSERT_TRUE(hex.has_value());
  EXPECT_EQ(*hex, p);
}

TEST(Pointer, RejectsMalformedText) {
  for (const char* bad : {"", "12", ":5", "5:", "a:1", "1:2:3", "1:-2", "1:4294967296", " 1:2"}) {
    EXPECT_FALSE(Pointer::Parse(bad).has_value()) << bad;
  }
}

TEST(Pointer, OrdersBySegmentThenOffset) {
  EXPECT_LT((Pointer{1, 900}), (Pointer{2, 0}));
  EXPECT_LT((Pointer{2, 0}), (Pointer{2, 1}));
}

TEST(TxId, RoundTripsThroughText) {
  TxId id{3, 7, 123456789012345ULL};
  EXPECT_EQ(id.ToString(), "3.7.123456789012345");
  EXPECT_EQ(TxId::Parse(id.ToString()), id);
  EXPECT_FALSE(TxId::Parse("3.7").has_value());
  EXPECT_FALSE(TxId::Parse("3.7.x").has_value());
}

TEST(Uuid, RoundTripsThroughText) {
  Uuid u{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  EXPECT_EQ(u.ToString(), "01234567-89ab-cdef-fedc-ba9876543210");
  EXPECT_EQ(Uuid::Parse(u.ToString()), u);
  EXPECT_FALSE(Uuid::Parse("01234567-89ab-cdef-fedc-ba987654321").has_value());
  EXPECT_FALSE(Uuid::Parse("01234567x89ab-cdef-fedc-ba9876543210").has_value());
}

TEST(Coding, FixedWidthIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201);
  PutFixed64(&s, 0x0807060504030201ULL);
  ASSERT_EQ(s.size(), 12u);
  EXPECT_EQ(s[0], 1);
  EXPECT_EQ(s[3], 4);
  EXPECT_EQ(s[4], 1);
  EXPECT_EQ(s[11], 8);
  Decoder d(s);
  uint32_t a = 0;
  uint64_t b = 0;
  EXPECT_TRUE(d.GetFixed32(&a));
  EXPECT_TRUE(d.GetFixed64(&b));
  EXPECT_EQ(a, 0x04030201u);
  EXPECT_EQ(b, 0x0807060504030201ULL);
  EXPECT_TRUE(d.done());
}

TEST(Coding, DecoderNeverReadsPastTheEnd) {
  std::string s;
  PutFixed32(&s, 1000);  // a length that the input cannot hold
  s += "abc";
  Decoder d(s);
  std::string_view v;
  EXPECT_FALSE(d.GetBytes(&v));
  EXPECT_TRUE(d.failed());
  uint8_t x = 0;
  EXPECT_FALSE(d.GetFixed8(&x));
}

TEST(Coding, CountLargerThanInputIsRefusedBeforeAllocation) {
  std::string s;
  PutFixed32(&s, 0xFFFFFFFFu);
  Decoder d(s);
  uint32_t n = 0;
  EXPECT_FALSE(d.GetCount32(&n, 16));
}

}  // namespace
}  // namespace wal
