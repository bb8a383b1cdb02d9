#include <gtest/gtest.h>

#include "libwal/frame.h"
#include "libwal/record.h"
#include "tests/support/segment_builder.h"

namespace wal {
namespace {

using testing_support::RecordGenerator;

// Frames `r` at a random address, parses the frame back and decodes the payload.
template <typename R>
AnyRecord RoundTrip(const R& r, RecordGenerator& g, std::string* storage) {
  Pointer at{g.Below(1000), static_cast<uint32_t>(g.Below(1u << 30))};
  storage->clear();
  AppendRecord(r, at, storage);
  FrameView fv;
  EXPECT_EQ(ParseFrame(storage->data(), storage->size(), at, true, &fv), FrameStatus::kOk);
  EXPECT_EQ(fv.size, storage->size());
  EXPECT_EQ(fv.type, static_cast<uint8_t>(TypeOf(r)));
  AnyRecord out;
  Status s = DecodePayload(fv.type, fv.payload, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(RecordRoundTrip, EveryTypeOverManyRandomRecords) {
  RecordGenerator g(42);
  std::string buf;
  for (int i = 0; i < 3000; ++i) {
    // Sizes from empty to large: every 100th record is big.
    const bool big = i % 100 == 0;
    TxRecord tx = g.MakeTx();
    EXPECT_EQ(RoundTrip(tx, g, &buf).tx, tx);
    DataRecord data = g.MakeData(big ? 200 : 4, big ? 4000 : 100);
    EXPECT_EQ(RoundTrip(data, g, &buf).data, data);
    RollbackRecord rb = g.MakeRollback();
    EXPECT_EQ(RoundTrip(rb, g, &buf).rollback, rb);
    ClusterSnapshotRecord snap = g.MakeSnapshot();
    EXPECT_EQ(RoundTrip(snap, g, &buf).snapshot, snap);
    CutStartRecord start = g.MakeCutStart();
    EXPECT_EQ(RoundTrip(start, g, &buf).cut_start, start);
    CutFinishRecord finish = g.MakeCutFinish(big ? 5000 : 10);
    EXPECT_EQ(RoundTrip(finish, g, &buf).cut_finish, finish);
    HeaderRecord h{kSegmentMagic, kFormatVersion, g.U64(), g.Id(), static_cast<uint16_t>(g.Below(65536))};
    EXPECT_EQ(RoundTrip(h, g, &buf).header, h);
    if (HasFailure()) return;
  }
}

TEST(RecordRoundTrip, EmptyRecordsRoundTrip) {
  RecordGenerator g(1);
  std::string buf;
  EXPECT_EQ(RoundTrip(DataRecord{}, g, &buf).data, DataRecord{});
  EXPECT_EQ(RoundTrip(TxRecord{}, g, &buf).tx, TxRecord{});
  EXPECT_EQ(RoundTrip(CutFinishRecord{}, g, &buf).cut_finish, CutFinishRecord{});
  EXPECT_EQ(RoundTrip(ClusterSnapshotRecord{}, g, &buf).snapshot, ClusterSnapshotRecord{});
}

TEST(RecordRoundTrip, FrameDoesNotVerifyAtAnotherAddress) {
  RecordGenerator g(7);
  std::string buf;
  AppendRecord(g.MakeTx(), Pointer{3, 100}, &buf);
  FrameView fv;
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{3, 100}, true, &fv), FrameStatus::kOk);
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{3, 101}, true, &fv),
            FrameStatus::kBadChecksum);
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{4, 100}, true, &fv),
            FrameStatus::kBadChecksum);
}

TEST(RecordDecode, TrailingBytesAreCorruption) {
  std::string payload;
  EncodePayload(RollbackRecord{1, 2, 3, 4}, &payload);
  payload.push_back('x');
  AnyRecord out;
  Status s = DecodePayload(static_cast<uint8_t>(RecordType::kRollback), payload, &out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("trailing bytes"), std::string::npos);
}

TEST(RecordDecode, InvalidEnumIsCorruptionWithPosition) {
  std::string payload;
  TxRecord t;
  EncodePayload(t, &payload);
  payload[0] = 3;  // not a TransactionState we write
  AnyRecord out;
  Status s = DecodePayload(0, payload, &out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("payload byte"), std::string::npos);
}

TEST(RecordDecode, EveryTruncationOfEveryTypeIsCorruption) {
  RecordGenerator g(9);
  std::vector<std::pair<uint8_t, std::string>> payloads;
  auto add = [&](const auto& r) {
    std::string p;
    EncodePayload(r, &p);
    payloads.emplace_back(static_cast<uint8_t>(TypeOf(r)), p);
  };
  add(g.MakeTx());
  add(g.MakeData(3, 20));
  add(g.MakeRollback());
  add(g.MakeSnapshot());
  add(g.MakeCutStart());
  add(g.MakeCutFinish(5));
  for (const auto& [type, p] : payloads) {
    for (size_t n = 0; n < p.size(); ++n) {
      AnyRecord out;
      Status s = DecodePayload(type, std::string_view(p).substr(0, n), &out);
      // A DataRecord or list cut exactly after a count of 0 elements is still short
      // of the fields that follow, so every prefix must fail.
      EXPECT_EQ(s.code(), StatusCode::kCorruption) << RecordTypeName(type) << " prefix " << n;
    }
  }
}

TEST(RecordType, NamesAndAliasesParse) {
  RecordType t;
  ASSERT_TRUE(ParseRecordType("tx", &t));
  EXPECT_EQ(t, RecordType::kTx);
  ASSERT_TRUE(ParseRecordType("DATA_RECORD_V2", &t));
  EXPECT_EQ(t, RecordType::kData);
  ASSERT_TRUE(ParseRecordType("cut-finish", &t));
  EXPECT_EQ(t, RecordType::kCutFinish);
  EXPECT_FALSE(ParseRecordType("nope", &t));
  EXPECT_STREQ(RecordTypeName(99), "UNKNOWN");
}

}  // namespace
}  // namespace wal
