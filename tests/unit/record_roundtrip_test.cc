#include <gtest/gtest.h>

#include "libwal/coding.h"
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
}

// Counters are Java longs: every value and range end at most 2^63 - 1, a DATA entry's
// counter at least 1, a range at least one counter long; a snapshot's name is a file
// name. Anything else is refused by the decoder, as by the views.
TEST(RecordDecode, CountersAndNamesOutOfBoundsAreCorruption) {
  auto refused = [](uint8_t type, const std::string& payload) {
    AnyRecord out;
    Status s = DecodePayload(type, payload, &out);
    return s.code() == StatusCode::kCorruption;
  };
  auto rollback = [](uint64_t start, uint64_t range) {
    std::string p;
    EncodePayload(RollbackRecord{1, 2, start, range}, &p);
    return p;
  };
  EXPECT_TRUE(refused(57, rollback(UINT64_MAX, 1)));
  EXPECT_TRUE(refused(57, rollback(kMaxCounter, 1)));
  EXPECT_TRUE(refused(57, rollback(uint64_t{1} << 63, 5)));
  EXPECT_TRUE(refused(57, rollback(5, 0)));
  EXPECT_FALSE(refused(57, rollback(kMaxCounter - 1, 1)));
  EXPECT_FALSE(refused(57, rollback(0, 3)));
  TxRecord t;
  t.counters.push_back({1, 2, UINT64_MAX - 1, 4});
  std::string tp;
  EncodePayload(t, &tp);
  EXPECT_TRUE(refused(0, tp));
  TxView tv;
  EXPECT_FALSE(ViewTx(tp, &tv));
  DataRecord d;
  d.entries.push_back(DataEntry{});
  d.entries[0].counter = 0;
  std::string dp;
  EncodePayload(d, &dp);
  EXPECT_TRUE(refused(70, dp));
  DataView dv;
  EXPECT_FALSE(ViewData(dp, &dv));
  d.entries[0].counter = 1;
  dp.clear();
  EncodePayload(d, &dp);
  EXPECT_FALSE(refused(70, dp));
  EXPECT_TRUE(ViewData(dp, &dv));
  for (std::string_view name : {std::string_view(""), std::string_view("."), std::string_view(".."),
                                std::string_view("a/b"), std::string_view("a\0b", 3)}) {
    std::string sp;
    EncodePayload(ClusterSnapshotRecord{1, name}, &sp);
    EXPECT_TRUE(refused(75, sp)) << name;
  }
  std::string long_name(256, 'n'), sp;
  EncodePayload(ClusterSnapshotRecord{1, long_name}, &sp);
  EXPECT_TRUE(refused(75, sp));
}

TEST(RecordRoundTrip, FrameDoesNotVerifyAtAnotherAddress) {
  RecordGenerator g(7);
  std::string buf;
  AppendRecord(g.MakeTx(), Pointer{3, 100}, &buf);
  FrameView fv;
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{3, 100}, true, &fv), FrameStatus::kOk);
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{3, 101}, true, &fv), FrameStatus::kBadChecksum);
  EXPECT_EQ(ParseFrame(buf.data(), buf.size(), Pointer{4, 100}, true, &fv), FrameStatus::kBadChecksum);
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

// What a view of a payload shows, as the decoded record would.
TxRecord FromView(const TxView& v) {
  TxRecord r;
  r.state = v.state;
  r.flags = v.flags;
  r.xid = v.xid;
  r.topology_version = v.topology_version;
  r.timestamp = v.timestamp;
  // Participants from the node walk: a primary, then its backups.
  Decoder d(v.participants);
  for (uint16_t i = 0; i < v.participant_count; ++i) {
    Participant p;
    uint16_t nb = 0;
    EXPECT_TRUE(d.GetFixed16(&p.primary) && d.GetFixed16(&nb));
    p.backups.resize(nb);
    for (auto& b : p.backups) EXPECT_TRUE(d.GetFixed16(&b));
    r.participants.push_back(p);
  }
  std::vector<uint16_t> walked, expected;
  v.ForEachParticipantNode([&](uint16_t o) { walked.push_back(o); });
  for (const auto& p : r.participants) {
    expected.push_back(p.primary);
    expected.insert(expected.end(), p.backups.begin(), p.backups.end());
  }
  EXPECT_EQ(walked, expected);
  Decoder c(v.counters);
  r.counters.resize(v.counter_count);
  for (auto& k : r.counters) {
    EXPECT_TRUE(c.GetFixed32(&k.cache_id) && c.GetFixed32(&k.partition) && c.GetFixed64(&k.start) &&
                c.GetFixed64(&k.delta));
  }
  return r;
}

DataRecord FromView(const DataView& v) {
  DataRecord r;
  r.timestamp = v.timestamp;
  DataEntryCursor cursor(v);
  DataEntry e;
  while (cursor.Next(&e)) r.entries.push_back(e);
  EXPECT_EQ(r.entries.size(), v.count);
  return r;
}

// A view accepts exactly the payloads DecodePayload accepts, and shows the same fields:
// checked on random records, every truncation of them, and changes of every byte.
TEST(RecordView, AcceptsWhatDecodeAcceptsAndShowsTheSameFields) {
  RecordGenerator g(7);
  std::string payload;
  size_t accepted = 0, refused = 0;
  auto compare = [&](uint8_t type, std::string_view p) {
    AnyRecord decoded;
    const bool ok = DecodePayload(type, p, &decoded).ok();
    if (type == static_cast<uint8_t>(RecordType::kTx)) {
      TxView v;
      ASSERT_EQ(ViewTx(p, &v), ok) << "payload of " << p.size() << " bytes";
      if (ok) {
        EXPECT_EQ(FromView(v), decoded.tx);
      }
    } else {
      DataView v;
      ASSERT_EQ(ViewData(p, &v), ok) << "payload of " << p.size() << " bytes";
      if (ok) {
        EXPECT_EQ(FromView(v), decoded.data);
      }
    }
    (ok ? accepted : refused)++;
  };
  for (int i = 0; i < 400; ++i) {
    for (uint8_t type : {uint8_t{0}, uint8_t{70}}) {
      payload.clear();
      if (type == 0) {
        EncodePayload(g.MakeTx(), &payload);
      } else {
        EncodePayload(g.MakeData(static_cast<size_t>(i % 5), 40), &payload);
      }
      compare(type, payload);
      for (size_t n = 0; n < payload.size(); ++n) compare(type, std::string_view(payload).substr(0, n));
      compare(type, payload + '\0');
      // Every byte set to the values the grammar tells apart (enum bounds, flag bits,
      // small counts and lengths), and to a random one.
      for (size_t at = 0; at < payload.size() && i < 120; ++at) {
        for (int value : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0xFF, -1}) {
          std::string changed = payload;
          changed[at] = static_cast<char>(value < 0 ? static_cast<int>(g.Below(256)) : value);
          compare(type, changed);
        }
      }
      if (HasFailure()) return;
    }
  }
  // Both outcomes were exercised many times.
  EXPECT_GT(accepted, 10000u);
  EXPECT_GT(refused, 10000u);
}

}  // namespace
}  // namespace wal
