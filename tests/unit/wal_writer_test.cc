#include <gtest/gtest.h>

#include <filesystem>

#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "libwal/wal_writer.h"
#include "libwal/write_all.h"
#include "tests/support/read_all.h"
#include "tests/support/segment_builder.h"
#include "tests/support/temp_dir.h"

namespace wal {
namespace {

using testing_support::RecordGenerator;
using testing_support::TempDir;

TEST(WalWriter, RollsBeforeASegmentPassesItsSize) {
  TempDir dir;
  WriterOptions o;
  o.segment_size = 8192;
  auto w = WalWriter::Create(dir.path() + "/wal", testing_support::TestNode(), 1, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  RecordGenerator g(1);
  std::vector<Pointer> ptrs;
  for (int i = 0; i < 300; ++i) {
    auto p = (*w)->Append(g.MakeData(2, 40));
    ASSERT_TRUE(p.ok());
    ptrs.push_back(*p);
  }
  ASSERT_TRUE((*w)->Close().ok());
  auto files = ListSegments(dir.path() + "/wal");
  ASSERT_TRUE(files.ok());
  ASSERT_GT(files->size(), 3u);
  for (size_t i = 0; i < files->size(); ++i) {
    EXPECT_EQ((*files)[i].index, i);
    EXPECT_LE(std::filesystem::file_size((*files)[i].path), o.segment_size);
  }
  auto r = testing_support::ReadAll(*files);
  EXPECT_TRUE(r.issues.empty());
  size_t data = 0;
  for (const auto& rec : r.records) {
    if (rec.type == static_cast<uint8_t>(RecordType::kData)) {
      EXPECT_EQ(rec.ptr, ptrs[data]);
      ++data;
    }
  }
  EXPECT_EQ(data, ptrs.size());
}

// A hook that lets `budget` bytes through, then records the fault instead of ending
// the process.
class ShortWrites : public WriteHook {
 public:
  explicit ShortWrites(size_t budget) : budget_(budget) {}
  size_t Allow(size_t size) override {
    const size_t n = std::min(size, budget_);
    budget_ -= n;
    return n;
  }
  void Fault() override { ++faults; }
  int faults = 0;

 private:
  size_t budget_;
};

// Every byte a writer puts in a file passes the installed hook: a fault leaves exactly
// the bytes allowed on disk and fails the write; with the hook removed, writes go on.
TEST(WalWriter, EveryWriteGoesThroughTheInstalledHook) {
  TempDir dir;
  WriterOptions o;
  o.segment_size = 8192;
  auto w = WalWriter::Create(dir.path() + "/wal", testing_support::TestNode(), 1, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  RecordGenerator g(2);
  ShortWrites hook(100);
  ASSERT_EQ(InstallWriteHook(&hook), nullptr);
  Status failed;
  for (int i = 0; i < 50 && failed.ok(); ++i) {
    auto p = (*w)->Append(g.MakeData(2, 40));
    if (p.ok()) failed = (*w)->Flush();
  }
  EXPECT_EQ(InstallWriteHook(nullptr), &hook);
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.ToString().find("a fault was injected"), std::string::npos) << failed.ToString();
  EXPECT_EQ(hook.faults, 1);
  auto files = ListSegments(dir.path() + "/wal");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ(std::filesystem::file_size((*files)[0].path), 100u);
}

TEST(WalWriter, RefusesADirectoryThatHoldsSegments) {
  TempDir dir;
  auto w = WalWriter::Create(dir.path(), testing_support::TestNode(), 1, {});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto again = WalWriter::Create(dir.path(), testing_support::TestNode(), 1, {});
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
}

TEST(WalWriter, CompressedSealedSegmentsReadBackIdentically) {
  TempDir plain_dir, lz4_dir;
  for (bool compress : {false, true}) {
    WriterOptions o;
    o.segment_size = 16384;
    o.compress_sealed = compress;
    o.fsync = compress;  // exercise both paths
    auto w = WalWriter::Create((compress ? lz4_dir : plain_dir).path(), testing_support::TestNode(), 1, o);
    ASSERT_TRUE(w.ok());
    RecordGenerator g(2);
    for (int i = 0; i < 400; ++i) ASSERT_TRUE((*w)->Append(g.MakeData(3, 30)).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto a = ListSegments(plain_dir.path());
  auto b = ListSegments(lz4_dir.path());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i + 1 < b->size(); ++i) EXPECT_TRUE((*b)[i].compressed);
  EXPECT_FALSE(b->back().compressed);  // the live segment stays plain
  EXPECT_EQ(testing_support::ReadAll(*a).records, testing_support::ReadAll(*b).records);
}

TEST(WalWriter, CloseTornLeavesATornTail) {
  TempDir dir;
  auto w = WalWriter::Create(dir.path(), testing_support::TestNode(), 1, {});
  RecordGenerator g(3);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*w)->Append(g.MakeTx()).ok());
  ASSERT_TRUE((*w)->CloseTorn(7).ok());
  auto r = testing_support::ReadAll(*ListSegments(dir.path()));
  EXPECT_EQ(r.Errors(), 0u);
  EXPECT_EQ(r.Count(IssueKind::kTornTail), 1u);
  EXPECT_EQ(r.records.size(), 5u);  // header + 4 whole transactions
}

// Reading with release_consumed (pages of a mapped segment given back as read, lazily
// mapped) returns exactly the records and payloads of a plain read, across segments of
// several MiB.
TEST(WalReader, ReleasingConsumedPagesReturnsTheSameRecords) {
  TempDir dir;
  WriterOptions o;
  o.segment_size = 3 << 20;
  auto w = WalWriter::Create(dir.path() + "/wal", testing_support::TestNode(), 1, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  RecordGenerator g(7);
  for (int i = 0; i < 40000; ++i) ASSERT_TRUE((*w)->Append(g.MakeData(3, 60)).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto read = [&](bool release, std::vector<std::pair<Pointer, std::string>>* out) {
    ReaderOptions ro;
    ro.release_consumed = release;
    size_t errors = 0;
    auto r = WalReader::OpenDirectory(dir.path() + "/wal", ro, [&](const Issue& i) { errors += i.IsError(); });
    ASSERT_TRUE(r.ok());
    const Record* rec = nullptr;
    while ((*r)->Next(&rec)) out->emplace_back(rec->ptr, std::string(rec->payload));
    EXPECT_EQ(errors, 0u);
  };
  std::vector<std::pair<Pointer, std::string>> plain, released;
  read(false, &plain);
  read(true, &released);
  ASSERT_GT(plain.size(), 40000u);
  EXPECT_GT(plain.back().first.segment, 1u);
  EXPECT_TRUE(plain == released);
}

}  // namespace
}  // namespace wal
