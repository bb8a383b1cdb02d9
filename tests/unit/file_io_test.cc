// Files written as a batch and fsynced together: each holds its bytes, a name that exists
// is refused (naming it) and left as it was, and more files than are held open at once
// are all written.
#include <gtest/gtest.h>

#include <string>

#include "libwal/file_io.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::TempDir;

TEST(NewFilesSynced, EveryFileHoldsItsBytesBeyondTheFilesHeldOpen) {
  TempDir dir;
  const size_t n = wal::NewFilesSynced::kOpen * 2 + 3;
  {
    wal::NewFilesSynced files;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(files.Add(dir.path() + "/f" + std::to_string(i), std::string(i, static_cast<char>('a' + i % 26))).ok());
    }
    ASSERT_TRUE(files.Finish().ok());
  }
  for (size_t i = 0; i < n; ++i) {
    auto bytes = wal::ReadFileToString(dir.path() + "/f" + std::to_string(i), UINT64_MAX);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    EXPECT_EQ(*bytes, std::string(i, static_cast<char>('a' + i % 26)));
  }
}

TEST(NewFilesSynced, AFileThatExistsIsRefusedAndKept) {
  TempDir dir;
  const std::string there = dir.path() + "/there";
  ASSERT_TRUE(wal::WriteNewFileSynced(there, "mine").ok());
  wal::NewFilesSynced files;
  ASSERT_TRUE(files.Add(dir.path() + "/new", "x").ok());
  const wal::Status s = files.Add(there, "theirs");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(there), std::string::npos) << s.message();
  EXPECT_TRUE(files.Finish().ok());
  EXPECT_EQ(*wal::ReadFileToString(there, UINT64_MAX), "mine");
}

}  // namespace
