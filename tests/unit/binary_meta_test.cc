// Ignite's binary metadata (db/binary_meta/<folder>/<type id>.bin), read from the
// fixtures a real Ignite wrote, and what it adds to a binary object's text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
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
