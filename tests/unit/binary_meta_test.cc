// Ignite's binary metadata (db/binary_meta/<folder>/<type id>.bin), read from the
// fixtures a real Ignite wrote, and what it adds to a binary object's text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/coding.h"
#include "libwal/ignite_format.h"
#include "tests/support/temp_dir.h"

namespace wal {
namespace {

namespace fs = std::filesystem;

const std::string kMetaDir =
    std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes/server-0/work/db/binary_meta/server_0";
constexpr int32_t kAccount = -1075729459;  // org.walcut.ignite.Account: balance (long), owner (String)

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(BinaryMeta, ReadsIgnitesAccountType) {
  int32_t id = 0;
  BinaryType t;
  ASSERT_TRUE(BinaryTypes::Parse(Read(kMetaDir + "/-1075729459.bin"), &id, &t).ok());
  EXPECT_EQ(id, kAccount);
  EXPECT_EQ(t.name, "org.walcut.ignite.Account");
  ASSERT_EQ(t.field_names.size(), 2u);
  std::vector<std::string> names;
  for (const auto& [fid, name] : t.field_names) names.push_back(name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"balance", "owner"}));
  ASSERT_EQ(t.schemas.size(), 1u);
  const auto& ids = t.schemas.begin()->second;
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(t.field_names.at(ids[0]), "balance");
  EXPECT_EQ(t.field_names.at(ids[1]), "owner");
}

// An Account as Ignite wrote it (schema of balance, owner): 1276, "owner-105".
std::string AccountBytes() {
  const std::string hex =
      "67012b00cdabe1bf67c47691310000006aead21b2f00000004fc0400000000000009090000006f776e65722d3130351821";
  std::string b;
  for (size_t i = 0; i < hex.size(); i += 2) b.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return b;
}

TEST(BinaryMeta, NamesTheTypeAndFieldsOfABinaryObject) {
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, AccountBytes()), "binary(-1075729459){1276,\"owner-105\"}");
  BinaryTypes types;
  std::vector<std::string> problems;
  types.LoadDir(kMetaDir, &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, AccountBytes(), &types),
            "binary(-1075729459 org.walcut.ignite.Account){balance=1276,owner=\"owner-105\"}");
  // A schema the metadata does not hold: the type's name, the values unnamed.
  std::string other = AccountBytes();
  other[16] = static_cast<char>(other[16] ^ 1);
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, other, &types),
            "binary(-1075729459 org.walcut.ignite.Account){1276,\"owner-105\"}");
}

// A binary object of type 5 with one int field (7) and raw data: the header, the field,
// the raw bytes, with `schema` a footer of 8 bytes and the raw data's offset after it.
std::string RawObject(bool schema, const std::string& raw) {
  std::string b(24, '\0');
  b[0] = static_cast<char>(103);
  b[1] = 1;
  b[2] = static_cast<char>(0x0001 | 0x0004 | (schema ? 0x0002 : 0));  // flags: user type, raw, schema
  wal::EncodeFixed32(&b[4], 5);
  b += std::string("\x03\x07\x00\x00\x00", 5);
  const auto raw_at = static_cast<uint32_t>(b.size());
  b += raw;
  const auto footer_at = static_cast<uint32_t>(b.size());
  if (schema) {
    b += std::string(8, '\x11');
    b += std::string(4, '\0');
    wal::EncodeFixed32(&b[b.size() - 4], raw_at);
  }
  wal::EncodeFixed32(&b[12], static_cast<uint32_t>(b.size()));
  wal::EncodeFixed32(&b[20], schema ? footer_at : raw_at);
  return b;
}

TEST(BinaryMeta, RawDataOfABinaryObjectIsShownAfterItsFields) {
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, RawObject(false, "\x01\x02")), "binary(5){7}+raw(0x0102)");
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, RawObject(true, "\xab")), "binary(5){7}+raw(0xab)");
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, RawObject(true, "")), "binary(5){7}+raw(0x)");
  // A raw offset past the schema's: not an object that can be read; its bytes in hex.
  std::string bad = RawObject(true, "\xab");
  wal::EncodeFixed32(&bad[bad.size() - 4], 40);
  EXPECT_EQ(CacheObjectText(ignite::kObjectBinary, bad).rfind("binary(5)0x", 0), 0u);
}

// Every prefix and every one-byte change of a real .bin: an error or a type, never a
// crash or a read past the end (the sanitizers watch).
TEST(BinaryMeta, DamagedFilesAreRefusedOrRead) {
  const std::string bin = Read(kMetaDir + "/-1075729459.bin");
  ASSERT_FALSE(bin.empty());
  size_t refused = 0;
  for (size_t n = 0; n < bin.size(); ++n) {
    int32_t id = 0;
    BinaryType t;
    refused += !BinaryTypes::Parse(std::string_view(bin).substr(0, n), &id, &t).ok();
  }
  EXPECT_GT(refused, bin.size() / 2);
  for (size_t i = 0; i < bin.size(); ++i) {
    std::string b = bin;
    b[i] = static_cast<char>(b[i] ^ 0xff);
    int32_t id = 0;
    BinaryType t;
    (void)BinaryTypes::Parse(b, &id, &t);
  }
}

TEST(BinaryMeta, AFileThatIsNotItsTypesIsNamed) {
  testing_support::TempDir dir;
  const std::string bin = Read(kMetaDir + "/-1075729459.bin");
  std::ofstream(dir.path() + "/42.bin", std::ios::binary) << bin;
  std::ofstream(dir.path() + "/7.bin", std::ios::binary) << "not metadata";
  std::ofstream(dir.path() + "/notes.txt") << "ignored";
  BinaryTypes types;
  std::vector<std::string> problems;
  types.LoadDir(dir.path(), &problems);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("42.bin\": holds type -1075729459"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("7.bin\": not Ignite binary metadata"), std::string::npos) << problems[1];
  EXPECT_TRUE(types.empty());
  types.LoadDir(dir.path() + "/missing", &problems);
  EXPECT_EQ(problems.size(), 2u);
}

}  // namespace
}  // namespace wal
