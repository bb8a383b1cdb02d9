// The reader's contract on damaged input: every change is noticed and located, a torn
// tail is told apart from corruption, and nothing is read out of range.
#include <gtest/gtest.h>
#include <lz4frame.h>

#include <fstream>
#include <thread>

#include "libwal/coding.h"
#include "libwal/lz4_codec.h"
#include "libwal/wal_reader.h"
#include "tests/support/read_all.h"
#include "tests/support/segment_builder.h"

namespace wal {
namespace {

using testing_support::InMemory;
using testing_support::ReadAll;
using testing_support::ReadResult;
using testing_support::RecordGenerator;
using testing_support::SegmentBuilder;

// A small segment with one record of every type.
SegmentBuilder SmallSegment(uint64_t index, RecordGenerator& g, bool seal) {
  SegmentBuilder b(index);
  b.Add(g.MakeSnapshot());
  b.Add(g.MakeTx());
  b.Add(g.MakeData(3, 30));
  b.Add(g.MakeRollback());
  b.Add(g.MakeCutStart());
  b.Add(g.MakeTx());
  b.Add(g.MakeCutFinish(4));
  if (seal) b.Seal();
  return b;
}

TEST(WalReader, ReadsEveryRecordOfACleanStream) {
  RecordGenerator g(1);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes())});
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.records.size(), s0.pointers().size() + s1.pointers().size());
  EXPECT_EQ(r.records[0].ptr, (Pointer{0, 0}));
  EXPECT_EQ(r.records.back().ptr, s1.pointers().back());
}

// Every single-byte change at every offset of the last segment is reported as
// corruption or as a torn tail; none is accepted silently, none crashes.
TEST(WalReader, EverySingleByteChangeIsDetected) {
  RecordGenerator g(2);
  auto seg = SmallSegment(0, g, false);
  const std::string clean = seg.bytes();
  ReadResult good = ReadAll({InMemory(0, clean)});
  ASSERT_TRUE(good.issues.empty());
  for (size_t off = 0; off < clean.size(); ++off) {
    for (int delta : {0x01, 0x80, 0xFF}) {
      std::string bad = clean;
      bad[off] = static_cast<char>(bad[off] ^ delta);
      ReadResult r = ReadAll({InMemory(0, bad)});
      bool noticed = r.Errors() > 0 || r.Count(IssueKind::kTornTail) > 0;
      ASSERT_TRUE(noticed) << "change at offset " << off << " accepted silently";
      // The report points at the record that holds the changed byte (or, for a frame
      // header that no longer parses, at that frame).
      const Issue& first = r.issues.front();
      size_t rec = 0;
      while (rec + 1 < seg.pointers().size() && seg.pointers()[rec + 1].offset <= off) ++rec;
      EXPECT_EQ(first.offset, seg.pointers()[rec].offset) << "offset " << off;
    }
  }
}

TEST(WalReader, EveryChangeInASealedSegmentIsCorruptionNotTornTail) {
  RecordGenerator g(3);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  for (size_t off = 0; off < s0.bytes().size(); ++off) {
    std::string bad = s0.bytes();
    bad[off] = static_cast<char>(bad[off] ^ 0x55);
    ReadResult r = ReadAll({InMemory(0, bad), InMemory(1, s1.bytes())});
    ASSERT_GT(r.Errors(), 0u) << off;
    EXPECT_EQ(r.Count(IssueKind::kTornTail), 0u) << off;
    // The second segment is read in full whatever happened to the first.
    EXPECT_EQ(r.records.back().ptr, s1.pointers().back()) << off;
  }
}

TEST(WalReader, ChecksumMismatchCarriesExpectedAndActual) {
  RecordGenerator g(4);
  auto seg = SmallSegment(0, g, false);
  std::string bad = seg.bytes();
  const uint32_t at = seg.pointers()[2].offset;
  bad[at + 12] ^= 0x10;  // inside the TX_RECORD payload
  ReadResult r = ReadAll({InMemory(0, bad)});
  ASSERT_EQ(r.Errors(), 1u);
  const Issue& i = r.issues[0];
  EXPECT_EQ(i.kind, IssueKind::kCorruption);
  EXPECT_EQ(i.offset, at);
  EXPECT_EQ(i.record_index, 2u);
  EXPECT_TRUE(i.has_checksums);
  EXPECT_NE(i.expected_checksum, i.actual_checksum);
  EXPECT_EQ(i.expected_checksum, DecodeFixed64(bad.data() + seg.pointers()[3].offset - 8));
  EXPECT_NE(i.ToString().find("expected checksum 0x"), std::string::npos);
  // Reading resumes at the next record: all the others come out.
  EXPECT_EQ(r.records.size(), seg.pointers().size() - 1);
  EXPECT_EQ(i.bytes_skipped, seg.pointers()[3].offset - at);
}

TEST(WalReader, TruncationAtEveryOffsetOfTheLastSegmentIsATornTail) {
  RecordGenerator g(5);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  const auto& ptrs = s1.pointers();
  for (size_t n = 0; n < s1.bytes().size(); ++n) {
    ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes().substr(0, n))});
    ASSERT_EQ(r.Errors(), 0u) << n;
    size_t whole = 0;  // records of segment 1 that fit in n bytes
    for (size_t k = 0; k < ptrs.size(); ++k) {
      size_t end = k + 1 < ptrs.size() ? ptrs[k + 1].offset : s1.bytes().size();
      if (end <= n) whole = k + 1;
    }
    bool boundary = n == 0 ? false : (whole < ptrs.size() && ptrs[whole].offset == n);
    EXPECT_EQ(r.Count(IssueKind::kTornTail), boundary ? 0u : 1u) << n;
    EXPECT_EQ(r.records.size(), s0.pointers().size() + whole) << n;
  }
}

TEST(WalReader, ZeroFilledTailIsATornTail) {
  RecordGenerator g(6);
  auto seg = SmallSegment(0, g, false);
  std::string bytes = seg.bytes() + std::string(4096, '\0');
  ReadResult r = ReadAll({InMemory(0, bytes)});
  EXPECT_EQ(r.Errors(), 0u);
  ASSERT_EQ(r.Count(IssueKind::kTornTail), 1u);
  EXPECT_EQ(r.issues[0].offset, seg.bytes().size());
  EXPECT_EQ(r.records.size(), seg.pointers().size());
}

// A crash during a write: the last record's first bytes reached the disk, the rest of
// its page is zeros. For every cut of the last record (into its header or its payload),
// a torn tail at the record, not corruption; the records before it are read.
TEST(WalReader, ALastRecordCutShortByZerosToThePageEndIsATornTail) {
  RecordGenerator g(16);
  auto seg = SmallSegment(0, g, false);
  wal::DataRecord big = g.MakeData(4, 200);
  const wal::Pointer at = seg.Add(big);
  const std::string whole = seg.bytes();
  const size_t size = whole.size() - at.offset;
  for (size_t kept = 1; kept < size; kept += 7) {
    std::string bytes = whole.substr(0, at.offset + kept);
    bytes.resize((bytes.size() / 4096 + 1) * 4096, '\0');
    if (whole.substr(at.offset + kept, 1) == std::string(1, '\0')) continue;  // the zeros would be the record's own
    ReadResult r = ReadAll({InMemory(0, bytes)});
    EXPECT_EQ(r.Errors(), 0u) << kept << ": " << (r.issues.empty() ? "" : r.issues[0].ToString());
    ASSERT_EQ(r.Count(IssueKind::kTornTail), 1u) << kept;
    EXPECT_EQ(r.issues[0].offset, at.offset) << kept;
    EXPECT_EQ(r.records.size(), seg.pointers().size() - 1) << kept;
  }
}

// The same shape in a file that does not end on a page boundary is no crash's doing.
TEST(WalReader, ZerosInsideTheLastRecordOffAPageBoundaryAreCorruption) {
  RecordGenerator g(17);
  auto seg = SmallSegment(0, g, false);
  const wal::Pointer at = seg.Add(g.MakeData(4, 200));
  std::string bytes = seg.bytes();
  for (size_t i = at.offset + 20; i + 8 < bytes.size(); ++i) bytes[i] = '\0';  // the checksum stays
  if (bytes.size() % 4096 == 0) bytes.push_back('\x01');
  ReadResult r = ReadAll({InMemory(0, bytes)});
  EXPECT_GE(r.Count(IssueKind::kCorruption), 1u);
}

TEST(WalReader, TruncatedSealedSegmentIsCorruption) {
  RecordGenerator g(7);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  std::string cut = s0.bytes().substr(0, s0.bytes().size() - 30);
  ReadResult r = ReadAll({InMemory(0, cut), InMemory(1, s1.bytes())});
  EXPECT_EQ(r.Count(IssueKind::kTornTail), 0u);
  EXPECT_GE(r.Count(IssueKind::kCorruption), 1u);
}

TEST(WalReader, UnsealedSegmentBeforeTheLastIsCorruption) {
  RecordGenerator g(8);
  auto s0 = SmallSegment(0, g, false);
  auto s1 = SmallSegment(1, g, false);
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes())});
  ASSERT_EQ(r.Errors(), 1u);
  EXPECT_EQ(r.issues[0].segment, 0u);
  EXPECT_NE(r.issues[0].message.find("SWITCH_SEGMENT"), std::string::npos);
}

TEST(WalReader, MissingSegmentIsReported) {
  RecordGenerator g(9);
  auto s0 = SmallSegment(0, g, true);
  auto s2 = SmallSegment(2, g, false);
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(2, s2.bytes())});
  ASSERT_EQ(r.Count(IssueKind::kMissingSegment), 1u);
  EXPECT_NE(r.issues[0].message.find("segment 1 is missing"), std::string::npos);
  EXPECT_EQ(r.records.size(), s0.pointers().size() + s2.pointers().size());
}

// A plain segment and its compressed form, both left by a crash during compression:
// one segment, read once, noted but not an error.
TEST(WalReader, SegmentStoredTwiceWithEqualBytesIsReadOnce) {
  RecordGenerator g(10);
  auto s0 = SmallSegment(0, g, false);
  auto packed = CompressLz4Frame(s0.bytes());
  ASSERT_TRUE(packed.ok());
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(0, *packed, true)});
  EXPECT_EQ(r.Count(IssueKind::kRedundantCopy), 1u);
  EXPECT_EQ(r.Count(IssueKind::kDuplicateSegment), 0u);
  EXPECT_EQ(r.Errors(), 0u);
  EXPECT_EQ(r.records.size(), s0.pointers().size());
}

TEST(WalReader, SegmentStoredTwiceWithOtherBytesIsADuplicate) {
  RecordGenerator g(10);
  auto s0 = SmallSegment(0, g, false);
  auto other = SmallSegment(0, g, false);
  auto packed = CompressLz4Frame(other.bytes());
  ASSERT_TRUE(packed.ok());
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(0, *packed, true)});
  EXPECT_EQ(r.Count(IssueKind::kDuplicateSegment), 1u);
  EXPECT_GE(r.Errors(), 1u);
  EXPECT_EQ(r.records.size(), s0.pointers().size());
}

TEST(WalReader, SegmentWhoseHeaderIndexDiffersIsForeign) {
  RecordGenerator g(11);
  auto s0 = SmallSegment(0, g, true);
  auto s5 = SmallSegment(5, g, false);  // stored under the name of segment 1
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s5.bytes())});
  ASSERT_GE(r.Count(IssueKind::kForeignSegment), 1u);
}

TEST(WalReader, SegmentOfAnotherNodeIsForeign) {
  RecordGenerator g(12);
  auto s0 = SmallSegment(0, g, true);
  SegmentBuilder other(1, testing_support::TestNode(99));
  other.Add(g.MakeTx());
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, other.bytes())});
  ASSERT_EQ(r.Count(IssueKind::kForeignSegment), 1u);
  EXPECT_NE(r.issues[0].message.find("belongs to node"), std::string::npos);
}

// Whose a segment is comes from its header: with the header damaged, the records after it
// could be another node's (their checksums bind them to segment and offset, not to a
// node), so none of them is read.
TEST(WalReader, ASegmentWhoseHeaderDoesNotVerifyIsSkippedWhole) {
  RecordGenerator g(12);
  auto s0 = SmallSegment(0, g, true);
  SegmentBuilder other(1, testing_support::TestNode(99));
  other.Add(g.MakeTx());
  other.Add(g.MakeTx());
  other.bytes()[9 + 20] ^= 0x01;  // a byte of the header's node id
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, other.bytes())});
  ASSERT_EQ(r.Errors(), 1u);
  EXPECT_EQ(r.issues[0].kind, IssueKind::kCorruption);
  EXPECT_EQ(r.issues[0].offset, 0u);
  EXPECT_NE(r.issues[0].message.find("segment header does not verify"), std::string::npos) << r.issues[0].message;
  for (const auto& rec : r.records) EXPECT_EQ(rec.ptr.segment, 0u);
}

TEST(WalReader, CompressedSegmentsReadTheSameAsPlain) {
  RecordGenerator g(13);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  auto packed = CompressLz4Frame(s0.bytes());
  ASSERT_TRUE(packed.ok());
  ReadResult plain = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes())});
  ReadResult mixed = ReadAll({InMemory(0, *packed, true), InMemory(1, s1.bytes())});
  EXPECT_TRUE(mixed.issues.empty());
  EXPECT_EQ(plain.records, mixed.records);
}

TEST(WalReader, DamagedLz4FrameIsReportedAndTheNextSegmentRead) {
  RecordGenerator g(14);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  auto packed = CompressLz4Frame(s0.bytes());
  ASSERT_TRUE(packed.ok());
  for (size_t off : {size_t{0}, size_t{5}, packed->size() / 2, packed->size() - 1}) {
    std::string bad = *packed;
    bad[off] ^= 0x21;
    ReadResult r = ReadAll({InMemory(0, bad, true), InMemory(1, s1.bytes())});
    ASSERT_EQ(r.Count(IssueKind::kBadLz4), 1u) << off;
    EXPECT_EQ(r.records.size(), s1.pointers().size()) << off;
  }
  ReadResult truncated = ReadAll({InMemory(0, packed->substr(0, packed->size() - 3), true), InMemory(1, s1.bytes())});
  EXPECT_EQ(truncated.Count(IssueKind::kBadLz4), 1u);
}

// A .wal.lz4 of `prefix` and then `zeros` zero bytes, compressed as it goes (the
// uncompressed bytes are never held).
std::string Lz4Bomb(const std::string& prefix, size_t zeros) {
  LZ4F_cctx* ctx = nullptr;
  EXPECT_FALSE(LZ4F_isError(LZ4F_createCompressionContext(&ctx, LZ4F_VERSION)));
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  std::string out(LZ4F_HEADER_SIZE_MAX, '\0');
  size_t n = LZ4F_compressBegin(ctx, out.data(), out.size(), &prefs);
  out.resize(n);
  const std::string chunk(1 << 20, '\0');
  std::string buf(LZ4F_compressBound(chunk.size(), &prefs), '\0');
  auto add = [&](std::string_view in) {
    size_t k = LZ4F_compressUpdate(ctx, buf.data(), buf.size(), in.data(), in.size(), nullptr);
    out.append(buf.data(), k);
  };
  add(prefix);
  for (size_t done = 0; done < zeros; done += chunk.size())
    add(std::string_view(chunk).substr(0, std::min(chunk.size(), zeros - done)));
  size_t k = LZ4F_compressEnd(ctx, buf.data(), buf.size(), nullptr);
  out.append(buf.data(), k);
  LZ4F_freeCompressionContext(ctx);
  return out;
}

size_t PeakRssMiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6)) / 1024;
  }
  return 0;
}

// Segments that decompress to 96 MiB each (a sound header, then zeros), read by three
// readers at once (576 MiB if held, 288 MiB if each reader held one): streamed, they take a
// few megabytes each.
TEST(WalReader, Lz4BombsAreReadInBoundedMemory) {
  SegmentBuilder head1(1), head2(2);
  const std::string bomb1 = Lz4Bomb(head1.bytes(), size_t{96} << 20);
  const std::string bomb2 = Lz4Bomb(head2.bytes(), size_t{96} << 20);
  RecordGenerator g(18);
  auto s0 = SmallSegment(0, g, true);
  const size_t before = PeakRssMiB();
  std::vector<std::thread> readers;
  std::vector<ReadResult> results(3);
  for (size_t k = 0; k < 3; ++k) {
    readers.emplace_back([&, k] {
      results[k] = ReadAll({InMemory(0, s0.bytes()), InMemory(1, bomb1, true), InMemory(2, bomb2, true)});
    });
  }
  for (auto& t : readers) t.join();
  const size_t peak = PeakRssMiB();
  for (const auto& r : results) {
    EXPECT_EQ(r.records.size(), s0.pointers().size() + 2);  // s0, and each bomb's header
    // bomb1: zeros where a record should follow, and no SWITCH record at its end.
    EXPECT_EQ(r.Count(IssueKind::kCorruption), 2u);
    for (const auto& i : r.issues) EXPECT_NE(i.segment, 0u) << i.ToString();
    EXPECT_EQ(r.Count(IssueKind::kTornTail), 1u);  // bomb2, the last: its unwritten end
  }
  EXPECT_LT(peak, before + 200) << "peak RSS " << peak << " MiB";
}

TEST(WalReader, LengthOfAllOnesIsCorruptionNotAnAllocation) {
  RecordGenerator g(15);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  std::string bad = s0.bytes();
  const uint32_t at = s0.pointers()[3].offset;
  EncodeFixed32(bad.data() + at, 0xFFFFFFFFu);
  EncodeFixed32(bad.data() + at + 4, 0u);  // the complement agrees: only the bound stops it
  ReadResult r = ReadAll({InMemory(0, bad), InMemory(1, s1.bytes())});
  ASSERT_GE(r.Count(IssueKind::kCorruption), 1u);
  EXPECT_EQ(r.issues[0].offset, at);
  EXPECT_NE(r.issues[0].message.find("bad record length"), std::string::npos);
  // The records after the damaged one are found again by resync.
  EXPECT_EQ(r.records.size(), s0.pointers().size() - 1 + s1.pointers().size());
}

TEST(WalReader, DuplicatedRecordDoesNotVerifyAtItsNewAddress) {
  RecordGenerator g(16);
  auto seg = SmallSegment(0, g, false);
  const auto& p = seg.pointers();
  std::string copy = seg.bytes().substr(p[2].offset, p[3].offset - p[2].offset);
  std::string bad = seg.bytes() + copy;
  ReadResult r = ReadAll({InMemory(0, bad)});
  ASSERT_EQ(r.Count(IssueKind::kCorruption), 1u);
  EXPECT_EQ(r.issues[0].offset, seg.bytes().size());
}

TEST(WalReader, UnknownRecordTypeIsReturnedNotAnError) {
  SegmentBuilder b(0);
  std::string bytes = b.bytes();
  AppendRawFrame(99, "opaque", Pointer{0, static_cast<uint32_t>(bytes.size())}, &bytes);
  ReadResult r = ReadAll({InMemory(0, bytes)});
  EXPECT_TRUE(r.issues.empty());
  ASSERT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.records[1].type, 99);
}

TEST(WalReader, WithoutResyncReadingStopsAtCorruption) {
  RecordGenerator g(17);
  auto seg = SmallSegment(0, g, false);
  std::string bad = seg.bytes();
  bad[seg.pointers()[2].offset + 10] ^= 1;
  ReaderOptions o;
  o.resync = false;
  ReadResult r = ReadAll({InMemory(0, bad)}, o);
  EXPECT_EQ(r.Errors(), 1u);
  EXPECT_EQ(r.records.size(), 2u);
}

TEST(WalReader, FromSkipsEarlierRecords) {
  RecordGenerator g(18);
  auto s0 = SmallSegment(0, g, true);
  auto s1 = SmallSegment(1, g, false);
  ReaderOptions o;
  o.from = s1.pointers()[2];
  ReadResult r = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes())}, o);
  ASSERT_FALSE(r.records.empty());
  EXPECT_EQ(r.records[0].ptr, s1.pointers()[2]);
  o.from_is_boundary = true;
  ReadResult direct = ReadAll({InMemory(0, s0.bytes()), InMemory(1, s1.bytes())}, o);
  EXPECT_EQ(direct.records, r.records);
}

}  // namespace
}  // namespace wal
