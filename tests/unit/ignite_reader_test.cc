// Reading Apache Ignite's segments: real files written by Ignite 2.17 (testdata/ignite)
// and segments built here with Ignite's framing, damaged in memory. Each damage is found
// and located; the ends Ignite itself treats as the end of data are not errors.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "libwal/ignite_format.h"
#include "libwal/ignite_frame.h"
#include "libwal/ignite_record.h"
#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "tests/support/read_all.h"

namespace wal {
namespace {

using testing_support::ReadAll;
using testing_support::ReadResult;

const std::string kNode = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes/server-0/work/db/wal/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SegmentFile Mem(uint64_t index, std::string bytes, const std::string& name, bool zip = false) {
  SegmentFile f;
  f.index = index;
  f.path = "mem/" + name;
  f.zip = zip;
  f.memory = std::make_shared<const std::string>(std::move(bytes));
  return f;
}

// A real file, as a segment in memory (placed by its header, as a listing does).
SegmentFile Real(const std::string& rel, std::string* bytes = nullptr) {
  std::string b = Slurp(kNode + rel);
  if (bytes != nullptr) *bytes = b;
  SegmentFile f = Mem(0, std::move(b), rel, rel.ends_with(".zip"));
  EXPECT_TRUE(PlaceSegmentFile(&f));
  return f;
}

// The file offsets of every record a clean read gives.
std::vector<uint64_t> Offsets(const SegmentFile& f) {
  std::vector<uint64_t> out;
  auto reader = WalReader::OpenFiles({f}, {}, nullptr);
  const Record* r = nullptr;
  while (reader->Next(&r)) out.push_back(r->file_offset);
  return out;
}

std::string Tx(uint64_t seg, uint32_t off, uint64_t order) {
  std::string p;
  p += '\x05';                                  // COMMITTED
  p += '\x01';                                  // near version, protocol 1
  p += std::string("\x07\0\0\0\x02\0\0\0", 8);  // topVer 7, node order 2
  for (int i = 0; i < 8; ++i) p += static_cast<char>(order >> (8 * i));
  p += '\0';                                             // write version null
  p += std::string("\x01\0\0\0\x00\x00\x00\0\0\0", 10);  // one participant: primary 0, no backups
  p += std::string("\x10\x27\0\0\0\0\0\0", 8);           // timestamp 10000 ms
  return IgniteFrame(0, Pointer{seg, off}, p);
}

// An Ignite segment: header, `n` TX_RECORDs, then `tail`.
std::string Segment(uint64_t seg, int n, const std::string& tail = std::string(1, '\x29')) {
  std::string s = IgniteHeader(seg, false);
  for (int i = 0; i < n; ++i) s += Tx(seg, static_cast<uint32_t>(s.size()), 100 + static_cast<uint64_t>(i));
  return s + tail;
}

TEST(IgniteReader, RealSegmentsReadCleanWithTheirHeaderIndex) {
  SegmentFile work = Real("server_0/0000000000000000.wal");
  EXPECT_EQ(work.index, 2u);  // work file 0 holds segment 2
  EXPECT_EQ(work.format, SegmentFormat::kIgnite);
  for (const char* rel : {"archive/server_0/0000000000000000.wal", "archive/server_0/0000000000000000.wal.zip"}) {
    ReadResult r = ReadAll({Real(rel)});
    EXPECT_EQ(r.Errors(), 0u) << rel << ": " << (r.issues.empty() ? "" : r.issues[0].ToString());
    ASSERT_GT(r.records.size(), 100u) << rel;
    EXPECT_EQ(r.records.back().type, static_cast<uint8_t>(RecordType::kSwitchSegment));
  }
}

TEST(IgniteReader, FlippedByteInARealSegmentIsLocatedAndReadingGoesOn) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  const uint64_t victim = at[at.size() / 2];
  bytes[victim + 20] = static_cast<char>(bytes[victim + 20] ^ 0x40);
  SegmentFile damaged = Mem(0, bytes, "archive/server_0/0000000000000000.wal");
  ReadResult r = ReadAll({damaged});
  ASSERT_EQ(r.Count(IssueKind::kCorruption), 1u);
  const Issue& i = r.issues[0];
  EXPECT_EQ(i.offset, victim);
  EXPECT_EQ(i.file, damaged.path);
  EXPECT_TRUE(i.has_checksums);
  EXPECT_NE(i.ToString().find("CRC mismatch"), std::string::npos) << i.ToString();
  EXPECT_EQ(r.records.size(), at.size() - 1);  // only the damaged record is lost
}

// A record's pointer from a snapshot's metadata: reading starts at it when a frame there
// verifies as that record (the damage before it is not read), and at the segment's
// beginning when not, giving the same records from `from` on.
TEST(IgniteReader, ARecordPointerFromElsewhereIsReadFromWhenItVerifies) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  ASSERT_GT(at.size(), 10u);
  const uint64_t victim = at[3];
  bytes[victim + 20] = static_cast<char>(bytes[victim + 20] ^ 0x40);  // damage before `from`
  SegmentFile damaged = Mem(0, bytes, "archive/server_0/0000000000000000.wal");
  ReaderOptions o;
  o.from = Pointer{0, static_cast<uint32_t>(at[at.size() / 2])};
  const ReadResult plain = ReadAll({damaged}, o);
  EXPECT_EQ(plain.Count(IssueKind::kCorruption), 1u);  // read from the beginning
  o.from_is_record = true;
  const ReadResult skipped = ReadAll({damaged}, o);
  EXPECT_EQ(skipped.Errors(), 0u);  // begun at `from`: the damage is never read
  EXPECT_EQ(skipped.records, plain.records);
  ASSERT_FALSE(skipped.records.empty());
  EXPECT_EQ(skipped.records.front().ptr, o.from);
}

TEST(IgniteReader, ARecordPointerThatIsNoRecordIsReadFromTheSegmentsBeginningWithTheSameOutcome) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  ASSERT_GT(at.size(), 10u);
  const uint64_t victim = at[3];
  bytes[victim + 20] = static_cast<char>(bytes[victim + 20] ^ 0x40);
  SegmentFile damaged = Mem(0, bytes, "archive/server_0/0000000000000000.wal");
  ReaderOptions o;
  o.from = Pointer{0, static_cast<uint32_t>(at[at.size() / 2] + 1)};  // inside a record
  const ReadResult plain = ReadAll({damaged}, o);
  EXPECT_EQ(plain.Count(IssueKind::kCorruption), 1u);
  o.from_is_record = true;
  const ReadResult r = ReadAll({damaged}, o);
  // Read from the beginning, the damage before `from` is not the reading's, as when the
  // pointer verifies and it is never read.
  EXPECT_EQ(r.Errors(), 0u);
  EXPECT_EQ(r.records, plain.records);
  ASSERT_FALSE(r.records.empty());
  EXPECT_EQ(r.records.front().ptr.offset, at[at.size() / 2 + 1]);
}

// Damage after the record pointed at is told, whichever way the segment is read.
TEST(IgniteReader, DamageAfterARecordPointerIsToldEitherWay) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  ASSERT_GT(at.size(), 10u);
  const uint64_t victim = at[at.size() - 3];
  bytes[victim + 20] = static_cast<char>(bytes[victim + 20] ^ 0x40);
  SegmentFile damaged = Mem(0, bytes, "archive/server_0/0000000000000000.wal");
  for (const uint64_t from : {at[at.size() / 2], at[at.size() / 2] + 1}) {  // a record, and none
    ReaderOptions o;
    o.from = Pointer{0, static_cast<uint32_t>(from)};
    o.from_is_record = true;
    const ReadResult r = ReadAll({damaged}, o);
    ASSERT_EQ(r.Count(IssueKind::kCorruption), 1u) << from;
    EXPECT_EQ(r.issues[0].offset, victim);
  }
}

// A pointer that lands on a byte 41 (a SWITCH_SEGMENT_RECORD's only byte, which carries
// no CRC and no pointer) is no verified record: the segment is read from its beginning.
TEST(IgniteReader, ARecordPointerOnASwitchByteIsNotTakenForARecord) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  ASSERT_GT(at.size(), 10u);
  uint64_t inside = 0;  // a byte 41 inside a record of the first half
  for (uint64_t i = at[1] + 1; i < at[at.size() / 2] && inside == 0; ++i) {
    if (bytes[i] == '\x29' && std::find(at.begin(), at.end(), i) == at.end()) inside = i;
  }
  ASSERT_NE(inside, 0u);
  ReaderOptions o;
  o.from = Pointer{0, static_cast<uint32_t>(inside)};
  const ReadResult plain = ReadAll({f}, o);
  o.from_is_record = true;
  const ReadResult r = ReadAll({f}, o);
  EXPECT_EQ(r.records, plain.records);
  EXPECT_GT(r.records.size(), at.size() / 3);  // not ended at the byte taken for a SWITCH
}

TEST(IgniteReader, RecordsAfterARunOfZerosInsideTheDataAreFoundAndTheZerosAreDamage) {
  // Three records zeroed in the middle of the last segment (a resync passes zeros at
  // once): records of this segment follow, so the type byte 0 is damage, not the end.
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  const size_t k = at.size() / 2;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(at[k]), bytes.begin() + static_cast<std::ptrdiff_t>(at[k + 3]),
            '\0');
  ReadResult r = ReadAll({Mem(0, bytes, "0000000000000000.wal")});
  ASSERT_EQ(r.Count(IssueKind::kCorruption), 1u);
  EXPECT_EQ(r.issues[0].offset, at[k]);
  EXPECT_NE(r.issues[0].ToString().find("records of this segment follow"), std::string::npos) << r.issues[0].ToString();
  EXPECT_EQ(r.records.size(), at.size() - 3);
  // Zeros from there to the end instead: the end of the data, nothing reported.
  bytes.replace(at[k], bytes.size() - at[k], bytes.size() - at[k], '\0');
  ReadResult end = ReadAll({Mem(0, bytes, "0000000000000000.wal")});
  EXPECT_EQ(end.Errors(), 0u);
  EXPECT_EQ(end.records.size(), k);
}

TEST(IgniteReader, FlippedByteInAZipIsLocated) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000001.wal.zip", &bytes);
  bytes[bytes.size() / 3] = static_cast<char>(bytes[bytes.size() / 3] ^ 0x10);
  ReadResult r = ReadAll({Mem(1, bytes, f.path.substr(4), true)});
  ASSERT_GE(r.Errors(), 1u);
  const Issue& i = r.issues[0];
  EXPECT_TRUE(i.kind == IssueKind::kBadZip || i.kind == IssueKind::kCorruption) << i.ToString();
  EXPECT_EQ(i.file, "mem/archive/server_0/0000000000000001.wal.zip");
  EXPECT_NE(i.ToString().find("entry offset"), std::string::npos) << i.ToString();
}

TEST(IgniteReader, AZipWhoseCentralDirectoryDisagreesIsAnError) {
  // The entry's bytes are sound, its CRC-32 in the central directory is not: found where
  // the entry ends, which the reader reaches although nothing after the data is a record.
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal.zip", &bytes);
  const size_t cd = bytes.rfind(std::string("PK\x01\x02", 4));
  ASSERT_NE(cd, std::string::npos);
  bytes[cd + 16] = static_cast<char>(bytes[cd + 16] ^ 0x01);
  // In memory (read whole), and from a file (inflated as a stream, as segments are read).
  ReadResult r = ReadAll({Mem(0, bytes, f.path.substr(4), true)});
  ASSERT_GE(r.Errors(), 1u);
  EXPECT_EQ(r.issues[0].kind, IssueKind::kBadZip) << r.issues[0].ToString();
  const std::string dir = testing::TempDir() + "/zip_cd_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/0000000000000000.wal.zip", std::ios::binary) << bytes;
  SegmentFile file;
  file.path = dir + "/0000000000000000.wal.zip";
  file.zip = true;
  ASSERT_TRUE(PlaceSegmentFile(&file));
  ReadResult streamed = ReadAll({file});
  std::filesystem::remove_all(dir);
  ASSERT_GE(streamed.Errors(), 1u);
  EXPECT_EQ(streamed.issues[0].kind, IssueKind::kBadZip) << streamed.issues[0].ToString();
}

TEST(IgniteReader, TruncatedLastSegmentIsATornTail) {
  std::string bytes;
  SegmentFile f = Real("archive/server_0/0000000000000000.wal", &bytes);
  const std::vector<uint64_t> at = Offsets(f);
  bytes.resize(at[at.size() / 2] + 10);
  ReadResult r = ReadAll({Mem(0, bytes, "0000000000000000.wal")});
  EXPECT_EQ(r.Errors(), 0u);
  ASSERT_EQ(r.Count(IssueKind::kTornTail), 1u);
  EXPECT_EQ(r.issues[0].offset, at[at.size() / 2]);
}

TEST(IgniteReader, UnknownMagicIsNamedAsSuch) {
  ReadResult r = ReadAll({Mem(0, std::string(100, 'x'), "0000000000000000.wal")});
  ASSERT_EQ(r.Count(IssueKind::kNotWal), 1u);
  EXPECT_EQ(r.Count(IssueKind::kCorruption), 0u);
  EXPECT_NE(r.issues[0].ToString().find("not a WAL segment at offset 0 (record 0): unknown magic 0x7878787878787878"),
            std::string::npos)
      << r.issues[0].ToString();
}

TEST(IgniteReader, SerializerVersion1IsRefused) {
  std::string s = IgniteHeader(0, false, 1) + std::string(40, '\x01');
  ReadResult r = ReadAll({Mem(0, s, "0000000000000000.wal")});
  ASSERT_EQ(r.Count(IssueKind::kUnsupported), 1u);
  EXPECT_NE(r.issues[0].message.find("serializer version 1 is not supported"), std::string::npos);
  EXPECT_TRUE(r.records.empty());
}

TEST(IgniteReader, StaleBytesAfterTheEndOfAWorkFileAreNotCorruption) {
  // The end mark (0), then an older segment's record: what a reused work file holds.
  std::string older = Segment(1, 3, "");
  std::string s = Segment(3, 2, std::string(1, '\0'));
  s += older.substr(s.size());
  s += std::string(64, '\0');
  wal::ReaderOptions noting;
  noting.note_stale_bytes = true;
  ReadResult quiet = ReadAll({Mem(3, s, "0000000000000001.wal")});
  EXPECT_TRUE(quiet.issues.empty());  // not asked for, not read
  EXPECT_EQ(quiet.records.size(), 3u);
  ReadResult r = ReadAll({Mem(3, s, "0000000000000001.wal")}, noting);
  EXPECT_EQ(r.Errors(), 0u) << r.issues[0].ToString();
  ASSERT_EQ(r.Count(IssueKind::kStaleBytes), 1u);
  EXPECT_EQ(r.records.size(), 3u);  // header and two records
  // Without the end mark the older record's pointer ends the data the same way.
  std::string t = Segment(3, 2, "");
  t += older.substr(t.size());
  r = ReadAll({Mem(3, t, "0000000000000001.wal")}, noting);
  EXPECT_EQ(r.Errors(), 0u);
  EXPECT_EQ(r.Count(IssueKind::kStaleBytes), 1u);
  EXPECT_NE(r.issues[0].message.find("a record of segment 1"), std::string::npos) << r.issues[0].message;
}

TEST(IgniteReader, CrcMismatchOnTheLastRecordIsATornTailElsewhereCorruption) {
  std::string s = Segment(5, 3, std::string(32, '\0'));
  s[s.size() - 33] = static_cast<char>(s[s.size() - 33] ^ 1);  // the last record's CRC
  ReadResult last = ReadAll({Mem(5, s, "0000000000000005.wal")});
  EXPECT_EQ(last.Errors(), 0u);
  EXPECT_EQ(last.Count(IssueKind::kTornTail), 1u);
  // The same damage in a segment that is not the last is corruption.
  ReadResult mid = ReadAll({Mem(5, s, "0000000000000005.wal"), Mem(6, Segment(6, 1), "0000000000000006.wal")});
  EXPECT_EQ(mid.Count(IssueKind::kCorruption), 1u);
  // And damage followed by sound records is corruption, read past.
  std::string d = Segment(5, 3);
  d[ignite::kHeaderSize + 20] = static_cast<char>(d[ignite::kHeaderSize + 20] ^ 1);
  ReadResult past = ReadAll({Mem(5, d, "0000000000000005.wal")});
  EXPECT_EQ(past.Count(IssueKind::kCorruption), 1u);
  EXPECT_EQ(past.issues[0].offset, ignite::kHeaderSize);
  EXPECT_EQ(past.records.size(), 4u);  // header, two records, SWITCH
}

TEST(IgniteReader, LightViewsAcceptWhatTheDecoderAccepts) {
  for (const char* rel : {"archive/server_0/0000000000000000.wal", "server_0/0000000000000001.wal"}) {
    SegmentFile f = Real(rel);
    ReaderOptions light;
    light.light = true;
    auto a = WalReader::OpenFiles({f}, {}, nullptr);
    auto b = WalReader::OpenFiles({f}, light, nullptr);
    const Record* x = nullptr;
    const Record* y = nullptr;
    size_t entries = 0;
    while (a->Next(&x)) {
      ASSERT_TRUE(b->Next(&y));
      ASSERT_EQ(x->ptr, y->ptr);
      if (x->type == static_cast<uint8_t>(RecordType::kTx)) {
        EXPECT_EQ(y->tx.xid, x->decoded.tx.xid);
        EXPECT_EQ(y->tx.write_version, x->decoded.tx.write_version);
        EXPECT_EQ(y->tx.timestamp, x->decoded.tx.timestamp);
        std::vector<uint16_t> nodes, want;
        y->tx.ForEachParticipantNode([&](uint16_t n) { nodes.push_back(n); });
        for (const auto& p : x->decoded.tx.participants) {
          want.push_back(p.primary);
          want.insert(want.end(), p.backups.begin(), p.backups.end());
        }
        EXPECT_EQ(nodes, want);
      } else if (x->type == static_cast<uint8_t>(RecordType::kData)) {
        DataEntryCursor c(y->data);
        DataEntry e;
        for (const auto& want : x->decoded.data.entries) {
          ASSERT_TRUE(c.Next(&e));
          EXPECT_EQ(e, want);
          ++entries;
        }
        EXPECT_FALSE(c.Next(&e));
      }
    }
    EXPECT_FALSE(b->Next(&y));
    EXPECT_GT(entries, 10u) << rel;
  }
}

TEST(IgniteReader, ListingPlacesFilesByHeaderAndReadsARawSegmentOnce) {
  auto work = ListSegments(kNode + "server_0");
  ASSERT_TRUE(work.ok());
  ASSERT_EQ(work->size(), 2u);
  EXPECT_EQ((*work)[0].index, 2u);
  EXPECT_EQ((*work)[1].index, 3u);
  auto archive = ListSegments(kNode + "archive/server_0");
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ(archive->size(), 6u);  // three raw, three compacted
  ReadResult r = ReadAll(*archive);
  EXPECT_TRUE(r.issues.empty()) << r.issues[0].ToString();
  size_t headers = 0;
  for (const auto& rec : r.records) headers += rec.type == static_cast<uint8_t>(RecordType::kHeader);
  EXPECT_EQ(headers, 3u);  // each segment once
}

// A listing places a .wal.zip by its header: it decompresses the header, not the 1 MiB
// step a reading takes (a listing of an archive of 64 MiB segments once decompressed a
// MiB of each, for every cut `cuts` found restorable).
TEST(IgniteReader, ALookAtAZipsHeaderDecompressesLittleMore) {
  SegmentFile f = Real("archive/server_0/0000000000000000.wal.zip");
  auto head = SegmentBytes::Load(f, /*lazy=*/true, /*stream=*/true);
  ASSERT_TRUE(head.ok());
  ASSERT_TRUE(head->FillHead(ignite::kHeaderSize));
  EXPECT_GE(head->bytes().size(), ignite::kHeaderSize);
  EXPECT_LT(head->bytes().size(), 4096u);
  EXPECT_FALSE(head->complete());
  auto read = SegmentBytes::Load(f, /*lazy=*/true, /*stream=*/true);
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->Fill(ignite::kHeaderSize));
  EXPECT_TRUE(read->complete());  // a reading's step: the whole entry (74 KB) here
  EXPECT_EQ(read->bytes().substr(0, ignite::kHeaderSize), head->bytes().substr(0, ignite::kHeaderSize));
}

// Raw deflate of `data` (what a .wal.zip's entry holds).
std::string Deflated(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A zip of stored entries (method 0), `entries` in order: name and bytes; with `deflate`,
// deflated (method 8).
std::string StoredZip(const std::vector<std::pair<std::string, std::string>>& entries, bool deflate = false) {
  auto u16 = [](std::string* o, uint32_t v) { o->append({static_cast<char>(v), static_cast<char>(v >> 8)}); };
  auto u32 = [&](std::string* o, uint32_t v) {
    u16(o, v & 0xFFFF);
    u16(o, v >> 16);
  };
  std::string zip, cd;
  for (const auto& [name, data] : entries) {
    const uint32_t at = static_cast<uint32_t>(zip.size());
    const uint32_t crc =
        static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const uint32_t n = static_cast<uint32_t>(data.size());
    const std::string body = deflate ? Deflated(data) : data;
    const uint32_t c = static_cast<uint32_t>(body.size());
    const uint32_t method = deflate ? 8 : 0;
    u32(&zip, 0x04034b50);
    u16(&zip, 20);
    u16(&zip, 0);
    u16(&zip, method);
    u32(&zip, 0);
    u32(&zip, crc);
    u32(&zip, c);
    u32(&zip, n);
    u16(&zip, static_cast<uint32_t>(name.size()));
    u16(&zip, 0);
    zip += name + body;
    u32(&cd, 0x02014b50);
    u16(&cd, 20);
    u16(&cd, 20);
    u16(&cd, 0);
    u16(&cd, method);
    u32(&cd, 0);
    u32(&cd, crc);
    u32(&cd, c);
    u32(&cd, n);
    u16(&cd, static_cast<uint32_t>(name.size()));
    u16(&cd, 0);
    u16(&cd, 0);
    u16(&cd, 0);
    u16(&cd, 0);
    u32(&cd, 0);
    u32(&cd, at);
    cd += name;
  }
  const uint32_t cd_at = static_cast<uint32_t>(zip.size());
  zip += cd;
  u32(&zip, 0x06054b50);
  u16(&zip, 0);
  u16(&zip, 0);
  u16(&zip, static_cast<uint32_t>(entries.size()));
  u16(&zip, static_cast<uint32_t>(entries.size()));
  u32(&zip, static_cast<uint32_t>(cd.size()));
  u32(&zip, cd_at);
  u16(&zip, 0);
  return zip;
}

// A listing places a large .wal.zip from the start of the file (its one entry first), and
// one whose first entry is another file from its central directory: the same index.
TEST(IgniteReader, AZipIsPlacedByItsWalEntryFirstOrNot) {
  std::string raw;
  Real("archive/server_0/0000000000000000.wal", &raw);  // 430 KiB: past the look at the start
  const std::string dir = testing::TempDir() + "/zip_place_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string first = dir + "/0000000000000007.wal.zip", second = dir + "/0000000000000008.wal.zip";
  std::ofstream(first, std::ios::binary) << StoredZip({{"0000000000000000.wal", raw}});
  std::ofstream(second, std::ios::binary)
      << StoredZip({{"notes.txt", std::string(100000, 'n')}, {"0000000000000000.wal", raw}});
  for (const std::string& path : {first, second}) {
    SegmentFile f;
    f.path = path;
    f.zip = true;
    ASSERT_TRUE(PlaceSegmentFile(&f)) << path;
    EXPECT_EQ(f.index, 0u) << path;  // by its header, not its name
    EXPECT_EQ(f.format, SegmentFormat::kIgnite) << path;
    EXPECT_EQ(ReadAll({f}).records.size(), Offsets(Real("archive/server_0/0000000000000000.wal")).size()) << path;
  }
  std::filesystem::remove_all(dir);
}

// Read with the whole segment kept (inflated at once, ahead of the reading), a .wal.zip
// gives what its stream gives when read a MiB at a time.
TEST(IgniteReader, AZipInflatedWholeGivesWhatItsStreamGives) {
  std::string raw;
  Real("archive/server_0/0000000000000000.wal", &raw);
  std::string big = raw;
  while (big.size() < (3u << 20)) big += raw.substr(ignite::kHeaderSize);  // past a step of 1 MiB
  SegmentFile f =
      Mem(0, StoredZip({{"0000000000000000.wal", big}}, /*deflate=*/true), "0000000000000000.wal.zip", true);
  auto whole = SegmentBytes::Load(f, /*lazy=*/false, /*stream=*/true);
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(whole->Fill(1));
  EXPECT_TRUE(whole->complete());  // at once, not a step
  // Lazy readings (many nodes at once) inflate whole one segment per core at a time: the
  // next one is inflated a MiB at a time until one is given back.
  std::vector<SegmentBytes> holders;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) {
    auto held = SegmentBytes::Load(f, /*lazy=*/true, /*stream=*/true);
    ASSERT_TRUE(held.ok());
    ASSERT_TRUE(held->Fill(1));
    EXPECT_TRUE(held->complete()) << i;
    holders.push_back(std::move(held).value());
  }
  auto stepped = SegmentBytes::Load(f, /*lazy=*/true, /*stream=*/true);
  ASSERT_TRUE(stepped.ok());
  ASSERT_TRUE(stepped->Fill(1));
  EXPECT_FALSE(stepped->complete());
  while (!stepped->complete() && stepped->Fill(stepped->bytes().size() + 1)) {
  }
  EXPECT_EQ(whole->bytes(), big);
  EXPECT_EQ(stepped->bytes(), big);
  EXPECT_EQ(holders.front().bytes(), big);
  holders.clear();
  auto again = SegmentBytes::Load(f, /*lazy=*/true, /*stream=*/true);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->Fill(1));
  EXPECT_TRUE(again->complete());
  SegmentFile real = Real("archive/server_0/0000000000000000.wal.zip");
  ReaderOptions lazy;
  lazy.release_consumed = true;
  EXPECT_EQ(ReadAll({real}).records, ReadAll({real}, lazy).records);
}

TEST(IgniteReader, PayloadsThatDoNotMatchTheGrammarAreRefusedWithAPosition) {
  AnyRecord a;
  Status s = DecodeIgnitePayload(0, std::string("\x05\x01\x02", 3), &a);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("TX_RECORD payload"), std::string::npos) << s.message();
  // An entry count no payload could hold allocates nothing and is refused.
  s = DecodeIgnitePayload(70, std::string("\xff\xff\xff\x7f\0\0\0\0\0\0\0\0", 12), &a);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("count larger than the payload"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace wal
