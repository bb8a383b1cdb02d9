// Chunked: what is pushed is kept in order and in place across chunks, and freed whole.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "libcut/chunked.h"

namespace cut {
namespace {

struct Wide {
  uint64_t a;
  uint32_t b;
};

TEST(Chunked, KeepsElementsInOrderAndInPlaceAcrossChunks) {
  Chunked<Wide> v;
  EXPECT_TRUE(v.empty());
  const size_t n = 3 * Chunked<Wide>::kPerChunk + 5;
  const Wide* first = nullptr;
  for (size_t i = 0; i < n; ++i) {
    v.push_back({i * 7, static_cast<uint32_t>(i)});
    if (i == 0) first = &v[0];
  }
  ASSERT_EQ(v.size(), n);
  EXPECT_EQ(&v[0], first);  // never moved by growing
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(v[i].a, i * 7) << i;
    ASSERT_EQ(v[i].b, i) << i;
  }
  size_t seen = 0;
  v.ForEach([&](const Wide& w) {
    EXPECT_EQ(w.b, seen);
    ++seen;
  });
  EXPECT_EQ(seen, n);
  EXPECT_EQ(v.back().b, n - 1);
  v.back().b = 99;
  EXPECT_EQ(v[n - 1].b, 99u);
  v.clear();
  EXPECT_TRUE(v.empty());
  v.ForEach([](const Wide&) { ADD_FAILURE() << "an element after clear"; });
  v.push_back({1, 2});  // usable again
  EXPECT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].b, 2u);
}

TEST(Chunked, AFullLastChunkIsWalkedWhole) {
  Chunked<uint32_t> v;
  for (uint32_t i = 0; i < Chunked<uint32_t>::kPerChunk * 2; ++i) v.push_back(i);
  uint64_t sum = 0;
  v.ForEach([&](uint32_t x) { sum += x; });
  const uint64_t n = Chunked<uint32_t>::kPerChunk * 2;
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

}  // namespace
}  // namespace cut
