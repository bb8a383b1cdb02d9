// Apache Ignite's page files as Ignite 2.17 wrote them (the full snapshot of
// testdata/ignite/full), and each kind of damage a page file can carry, made by rewriting
// bytes of a real file in memory (with the page's CRC written anew where the damage is to
// pass the CRC): each is reported at its page and offset, and never read as a row.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <libdeflate.h>

#include "libwal/coding.h"
#include "libwal/file_io.h"
#include "libwal/ignite_page.h"
#include "libwal/ignite_partition_file.h"
#include "libwal/ignite_snapshot.h"

namespace {

namespace fs = std::filesystem;
namespace ip = wal::ignite_page;

const std::string kStore =
    std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/full/nodes/server-0/work/snapshots/snap/db/server_0";
constexpr uint32_t kPage = 4096;

std::string Bytes(const std::string& path) { return wal::ReadFileToString(path, 64 << 20).value(); }

struct Read {
  wal::Status status;
  std::vector<wal::PartitionRow> rows;
  std::vector<std::string> row_keys;
  wal::IgnitePartitionFile::Outcome out;
  uint64_t pages = 0;
};

Read ReadBytes(std::string bytes, bool shared, const std::string& name = "part-0.bin") {
  Read r;
  auto f = wal::IgnitePartitionFile::FromBytes(name, std::move(bytes));
  if (!f.ok()) {
    r.status = f.status();
    return r;
  }
  r.pages = f->pages();
  wal::IgnitePartitionFile::Reading how;
  how.shared_group = shared;
  r.status = f->ReadRows(
      how,
      [&](const wal::PartitionRow& row) {
        r.rows.push_back(row);
        r.row_keys.emplace_back(row.row.key);
      },
      &r.out);
  return r;
}

// Page i of a version 2 file: after a header of one page.
size_t PageAt(uint64_t i) { return (i + 1) * kPage; }

void FixCrc(std::string* file, uint64_t page) {
  char* p = file->data() + PageAt(page);
  std::memset(p + 4, 0, 4);
  const uint32_t crc = ~static_cast<uint32_t>(libdeflate_crc32(0, p, kPage));
  wal::EncodeFixed32(p + 4, crc);
}

// The first data page of `file` whose entry 0 satisfies `want`, or -1.
int64_t FindDataPage(const std::string& file,
                     const std::function<bool(const ip::Payload&, const ip::DataPage&)>& want) {
  for (uint64_t i = 0; PageAt(i + 1) <= file.size(); ++i) {
    const std::string_view page(file.data() + PageAt(i), kPage);
    if (ip::ParsePageHeader(page).type != ip::kData) continue;
    ip::DataPage d;
    ip::Payload p;
    std::string why;
    if (ip::ParseDataPage(page, &d, &why) && d.direct > 0 && ip::DirectPayload(page, d, 0, &p, &why) && want(p, d)) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

// A shelf (cache group) partition holding a row in fragments.
std::string FragmentedShelfFile() {
  for (const auto& e : fs::directory_iterator(kStore + "/cacheGroup-shelf")) {
    if (e.path().extension() != ".bin") continue;
    std::string b = Bytes(e.path().string());
    if (FindDataPage(b, [](const ip::Payload& p, const ip::DataPage&) { return p.fragmented && p.next != 0; }) >= 0) {
      return e.path().string();
    }
  }
  return {};
}

TEST(IgnitePageFile, ReadsEveryRowOfARealPartitionOnceAndMatchesItsMetaPage) {
  for (const auto& e : fs::directory_iterator(kStore + "/cache-bank")) {
    if (e.path().extension() != ".bin") continue;
    Read r = ReadBytes(Bytes(e.path().string()), false, e.path().filename().string());
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.out.damage.empty()) << r.out.damage.front().ToString(e.path().string());
    ASSERT_TRUE(r.out.meta_read);
    EXPECT_EQ(r.out.meta.state, 1) << "OWNING";
    EXPECT_EQ(static_cast<int64_t>(r.rows.size()), r.out.meta.size) << e.path();
    std::set<std::string> keys(r.row_keys.begin(), r.row_keys.end());
    EXPECT_EQ(keys.size(), r.rows.size()) << "a row given twice";
  }
}

TEST(IgnitePageFile, ACacheGroupsRowsTakeTheirCachesFromTheDataTree) {
  std::set<int32_t> caches;
  for (const auto& e : fs::directory_iterator(kStore + "/cacheGroup-shelf")) {
    if (e.path().extension() != ".bin") continue;
    Read r = ReadBytes(Bytes(e.path().string()), true, e.path().filename().string());
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.out.damage.empty());
    for (const auto& row : r.rows) caches.insert(row.cache_id);
  }
  EXPECT_EQ(caches, (std::set<int32_t>{wal::IgniteCacheId("blobs"), wal::IgniteCacheId("notes")}));
}

TEST(IgnitePageFile, ARowLargerThanAPageIsAssembledFromItsFragments) {
  const std::string path = FragmentedShelfFile();
  ASSERT_FALSE(path.empty()) << "no fragmented row in the fixture";
  Read r = ReadBytes(Bytes(path), true, fs::path(path).filename().string());
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.out.damage.empty());
  auto big = std::find_if(r.rows.begin(), r.rows.end(), [](const wal::PartitionRow& x) { return x.pages > 1; });
  ASSERT_NE(big, r.rows.end());
  EXPECT_GT(big->row.value.size(), kPage);
  EXPECT_EQ(big->row.value_type, 2) << "a byte[]";
}

TEST(IgnitePageFile, AByteChangedInADataPageIsACrcMismatchAtItsPageAndItsRowsAreNotRead) {
  const std::string path = kStore + "/cache-bank/part-3.bin";
  std::string b = Bytes(path);
  const Read sound = ReadBytes(b, false, "part-3.bin");
  const int64_t page = FindDataPage(b, [](const ip::Payload&, const ip::DataPage&) { return true; });
  ASSERT_GE(page, 0);
  b[PageAt(static_cast<uint64_t>(page)) + kPage - 3] ^= 1;
  Read r = ReadBytes(b, false, "part-3.bin");
  ASSERT_TRUE(r.status.ok());
  ASSERT_FALSE(r.out.damage.empty());
  EXPECT_EQ(r.out.damage[0].page, static_cast<uint64_t>(page));
  EXPECT_EQ(r.out.damage[0].offset, PageAt(static_cast<uint64_t>(page)) + 4);
  EXPECT_NE(r.out.damage[0].what.find("CRC"), std::string::npos) << r.out.damage[0].what;
  EXPECT_LT(r.rows.size(), sound.rows.size());
}

TEST(IgnitePageFile, APageWhoseIdNamesAnotherPlaceIsDamage) {
  std::string b = Bytes(kStore + "/cache-bank/part-3.bin");
  const int64_t page = FindDataPage(b, [](const ip::Payload&, const ip::DataPage&) { return true; });
  ASSERT_GE(page, 0);
  char* id = b.data() + PageAt(static_cast<uint64_t>(page)) + 8;
  wal::EncodeFixed64(id, wal::DecodeFixed64(id) + 1);  // the next page's index
  FixCrc(&b, static_cast<uint64_t>(page));
  Read r = ReadBytes(b, false, "part-3.bin");
  ASSERT_FALSE(r.out.damage.empty());
  EXPECT_EQ(r.out.damage[0].page, static_cast<uint64_t>(page));
  EXPECT_NE(r.out.damage[0].what.find("names page"), std::string::npos) << r.out.damage[0].what;
}

TEST(IgnitePageFile, FragmentLinksIntoALoopOrOutOfTheFileAreDamageNeverAHang) {
  const std::string path = FragmentedShelfFile();
  ASSERT_FALSE(path.empty());
  const std::string name = fs::path(path).filename().string();
  const std::string sound = Bytes(path);
  const int64_t head =
      FindDataPage(sound, [](const ip::Payload& p, const ip::DataPage&) { return p.fragmented && p.next != 0; });
  ASSERT_GE(head, 0);
  const std::string_view page(sound.data() + PageAt(static_cast<uint64_t>(head)), kPage);
  ip::DataPage d;
  ip::Payload p;
  std::string why;
  ASSERT_TRUE(ip::ParseDataPage(page, &d, &why) && ip::DirectPayload(page, d, 0, &p, &why));
  const size_t link_at = PageAt(static_cast<uint64_t>(head)) + p.offset + 2;
  const uint64_t self =
      (wal::DecodeFixed64(sound.data() + link_at) & ~uint64_t{0xFFFFFFFF}) | static_cast<uint64_t>(head);
  for (uint64_t link :
       std::vector<uint64_t>{self, (self & ~uint64_t{0xFFFFFFFF}) | 0xFFFFFF, self ^ (uint64_t{7} << 32)}) {
    std::string b = sound;
    wal::EncodeFixed64(b.data() + link_at, link);
    FixCrc(&b, static_cast<uint64_t>(head));
    Read r = ReadBytes(b, true, name);
    ASSERT_TRUE(r.status.ok());
    EXPECT_FALSE(r.out.damage.empty()) << "link 0x" << std::hex << link;
    for (const auto& row : r.rows) EXPECT_LE(row.pages, r.pages);
  }
}

TEST(IgnitePageFile, ARowNoLeafNamesIsDamageAndInACacheGroupNotRead) {
  std::string b = Bytes(kStore + "/cacheGroup-shelf/part-0.bin");
  const Read sound = ReadBytes(b, true);
  ASSERT_TRUE(sound.out.damage.empty());
  // The leaf's item count down by one: its last row is named by no leaf.
  for (uint64_t i = 0; PageAt(i + 1) <= b.size(); ++i) {
    char* p = b.data() + PageAt(i);
    if (wal::DecodeFixed16(p) != ip::kCacheIdDataRefLeaf || wal::DecodeFixed16(p + 40) == 0) continue;
    const uint16_t n = wal::DecodeFixed16(p + 40);
    p[40] = static_cast<char>((n - 1) & 0xFF);
    p[41] = static_cast<char>((n - 1) >> 8);
    FixCrc(&b, i);
    break;
  }
  Read r = ReadBytes(b, true);
  ASSERT_FALSE(r.out.damage.empty());
  EXPECT_NE(r.out.damage[0].what.find("in no leaf of the data tree"), std::string::npos) << r.out.damage[0].what;
  EXPECT_EQ(r.rows.size() + 1, sound.rows.size());
}

TEST(IgnitePageFile, ACompressedPageIsRefusedByNameWithItsPage) {
  std::string b = Bytes(kStore + "/cache-bank/part-0.bin");
  b[PageAt(2) + 17] = 2;  // ZSTD
  FixCrc(&b, 2);
  Read r = ReadBytes(b, false);
  EXPECT_EQ(r.status.code(), wal::StatusCode::kNotSupported);
  EXPECT_NE(r.status.message().find("page 2 is compressed (ZSTD)"), std::string::npos) << r.status.message();
}

TEST(IgnitePageFile, AFileThatIsNoPageFileIsRefusedWithWhy) {
  const std::string sound = Bytes(kStore + "/cache-bank/part-0.bin");
  std::string b = sound;
  b[0] ^= 1;
  EXPECT_NE(ReadBytes(b, false).status.message().find("signature"), std::string::npos);
  b = sound;
  wal::EncodeFixed32(b.data() + 13, 3000);
  EXPECT_NE(ReadBytes(b, false).status.message().find("page size 3000"), std::string::npos);
  b = sound;
  b[12] = 2;  // an index file's type, in part-0.bin
  EXPECT_EQ(ReadBytes(b, false).status.code(), wal::StatusCode::kCorruption);
  EXPECT_FALSE(wal::IgnitePartitionFile::FromBytes("part-70000.bin", sound).ok()) << "partition ids end at 65500";
  EXPECT_FALSE(wal::IgnitePartitionFile::FromBytes("part-007.bin", sound).ok());
}

TEST(IgnitePageFile, AZeroedPageAndAFileCutInsideAPageAreDamage) {
  std::string b = Bytes(kStore + "/cache-bank/part-0.bin");
  std::fill(b.begin() + static_cast<std::ptrdiff_t>(PageAt(3)), b.begin() + static_cast<std::ptrdiff_t>(PageAt(4)),
            '\0');
  b.resize(b.size() - 100);
  Read r = ReadBytes(b, false);
  ASSERT_TRUE(r.status.ok());
  std::vector<std::string> what;
  for (const auto& d : r.out.damage) what.push_back(d.what);
  EXPECT_TRUE(std::any_of(what.begin(), what.end(),
                          [](const std::string& w) { return w.find("all zeros") != std::string::npos; }));
  EXPECT_TRUE(std::any_of(what.begin(), what.end(),
                          [](const std::string& w) { return w.find("ends 3996 bytes") != std::string::npos; }));
}

TEST(IgnitePageFile, EveryByteOfAPageFlippedIsReportedOrHarmlessNeverACrash) {
  const std::string sound = Bytes(kStore + "/cacheGroup-shelf/part-0.bin");
  for (size_t at = 0; at < sound.size(); at += 7) {
    std::string b = sound;
    b[at] = static_cast<char>(b[at] ^ 0x5a);
    if (at >= kPage) FixCrc(&b, at / kPage - 1);  // past the CRC: the page's structure itself is damaged
    Read r = ReadBytes(b, true);
    for (const auto& row : r.rows) EXPECT_LE(row.row.key.size() + row.row.value.size(), b.size());
  }
}

TEST(IgniteSnapshotFiles, CacheConfigurationsAndMetadataReadWithoutAJvm) {
  auto events = wal::ParseIgniteCacheData(Bytes(kStore + "/cache-events/cache_data.dat"));
  ASSERT_TRUE(events.ok()) << events.status().message();
  EXPECT_EQ(events->name, "events");
  EXPECT_EQ(events->atomicity, "ATOMIC");
  EXPECT_EQ(events->backups, 1);
  EXPECT_FALSE(events->encrypted);
  auto blobs = wal::ParseIgniteCacheData(Bytes(kStore + "/cacheGroup-shelf/blobscache_data.dat"));
  ASSERT_TRUE(blobs.ok());
  EXPECT_EQ(blobs->group, "shelf");
  EXPECT_EQ(blobs->atomicity, "TRANSACTIONAL");
  auto meta = wal::ParseIgniteSnapshotMeta(Bytes(kStore + "/../../server_0.smf"));
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->folder, "server_0");
  EXPECT_EQ(meta->page_size, kPage);
  ASSERT_TRUE(meta->record.has_value());
  // The partitions it lists are the files there.
  auto groups = wal::ListIgniteGroups(kStore);
  ASSERT_TRUE(groups.ok());
  for (const auto& g : *groups) {
    std::vector<uint32_t> files;
    for (const auto& f : g.files) files.push_back(f.first);
    EXPECT_EQ(meta->partitions[g.id], files) << g.name;
  }
}

TEST(IgniteSnapshotFiles, CacheIdsAreJavasStringHashes) {
  EXPECT_EQ(wal::IgniteCacheId("bank"), 3016252);
  EXPECT_EQ(wal::IgniteCacheId("events"), -1291329255);
  EXPECT_EQ(wal::IgniteCacheId("MetaStorage"), -1476359018);
  EXPECT_EQ(wal::IgniteMetastorageGroupId(), -1476359018);
  EXPECT_EQ(wal::JavaStringHash("acct-7"), -1423448835);
  EXPECT_EQ(wal::JavaStringHash("\xce\xa9"), 937) << "U+03A9, one UTF-16 unit";
  EXPECT_EQ(wal::IgniteCacheId(""), 1) << "0 is taken as 1";
}

}  // namespace
