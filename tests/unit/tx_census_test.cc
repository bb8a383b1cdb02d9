// TxCensus: a node's transactions come out sorted by id, one per id, whichever way the
// ids are ranked (a 64-bit key when they fit one, the whole id when not) and whichever
// order they come in (shuffled, nearly sorted, a group reversed).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "libcut/tx_census.h"
#include "libwal/wal_reader.h"
#include "libwal/wal_writer.h"
#include "tests/support/segment_builder.h"
#include "tests/support/temp_dir.h"

namespace cut {
namespace {

using testing_support::TempDir;

// Writes for each id a PREPARED and a COMMITTED record (and one write), in a shuffled
// order, and returns the node's census.
NodeTxs Census(const std::vector<wal::TxId>& ids, bool shuffle = true) {
  TempDir dir;
  auto w = wal::WalWriter::Create(dir.path() + "/wal", testing_support::TestNode(), 1, wal::WriterOptions{});
  EXPECT_TRUE(w.ok());
  std::vector<wal::TxId> shuffled = ids;
  if (shuffle) std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  uint64_t counter = 0;
  for (const auto& x : shuffled) {
    wal::TxRecord t;
    t.xid = x;
    t.state = wal::TxState::kPrepared;
    EXPECT_TRUE((*w)->Append(t).ok());
    wal::DataRecord d;
    wal::DataEntry e;
    e.xid = x;
    e.partition = 3;
    e.counter = ++counter;
    e.key = "k";
    e.value = "v";
    d.entries.push_back(e);
    EXPECT_TRUE((*w)->Append(d).ok());
    t.state = wal::TxState::kCommitted;
    EXPECT_TRUE((*w)->Append(t).ok());
  }
  EXPECT_TRUE((*w)->Close().ok());
  wal::ReaderOptions ro;
  ro.light = true;
  auto reader = wal::WalReader::OpenDirectory(dir.path() + "/wal", ro, nullptr);
  EXPECT_TRUE(reader.ok());
  TxCensus census(std::nullopt);
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) census.OnRecord(*r);
  NodeTxs out;
  census.Finish(&out);
  return out;
}

void ExpectSortedOnce(const std::vector<wal::TxId>& ids, bool shuffle = true) {
  const NodeTxs n = Census(ids, shuffle);
  std::vector<wal::TxId> want = ids;
  std::sort(want.begin(), want.end());
  ASSERT_EQ(n.txs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(n.txs[i].xid, want[i]) << i;
    EXPECT_EQ(n.txs[i].state(), wal::TxState::kCommitted);
    EXPECT_EQ(n.txs[i].commits_count, 1u);
    EXPECT_EQ(n.txs[i].writes_count, 1u);
  }
}

TEST(TxCensus, FewOriginatorsSortById) {
  std::vector<wal::TxId> ids;
  for (uint32_t node = 1; node <= 5; ++node) {
    for (uint64_t o = 1; o <= 200; ++o) ids.push_back({node % 2 + 1, node, o * 3});
  }
  ExpectSortedOnce(ids);
}

TEST(TxCensus, OriginatorsInterleavedEachInOrderSortById) {
  // As a WAL has them: each near node's orders growing, the near nodes interleaved (each
  // group comes sorted; the groups must still be merged), one group out of order.
  std::vector<wal::TxId> ids;
  for (uint64_t o = 1; o <= 300; ++o) {
    for (uint32_t node = 1; node <= 4; ++node) ids.push_back({1, node, node == 3 ? 1000 - o : o});
  }
  ExpectSortedOnce(ids, false);
}

TEST(TxCensus, NearlySortedIdsOverManyChunksSortById) {
  // Each id a few places from its own (transactions begun in one order, logged in a
  // near one), more of them than one chunk of the census's tables holds.
  std::vector<wal::TxId> ids;
  std::mt19937 random(11);
  for (uint64_t o = 1; o <= 40000; ++o) ids.push_back({1, o % 50 == 0 ? 2u : 1u, o});
  for (auto i = ids.begin(); ids.end() - i >= 12; i += 12) std::shuffle(i, i + 12, random);
  ExpectSortedOnce(ids, false);
}

TEST(TxCensus, IdsTooWideForOneKeySortById) {
  // An order above 2^56, and more (topology version, node order) pairs than a key numbers.
  std::vector<wal::TxId> ids;
  for (uint32_t node = 1; node <= 100; ++node) {
    ids.push_back({7, node, 5});
    ids.push_back({3, node, uint64_t{1} << 60});
  }
  ExpectSortedOnce(ids);
  ExpectSortedOnce({{1, 1, uint64_t{1} << 57}, {1, 1, 2}, {1, 2, 1}});
}

}  // namespace
}  // namespace cut
