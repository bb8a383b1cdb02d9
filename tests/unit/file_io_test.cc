// Files written new and an output made durable as a whole: each new file holds its bytes,
// a name that exists is refused (naming it) and left as it was, and a staged output's
// files, synced at once, are all there once it is published and nothing of the stage is.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "libwal/file_io.h"
#include "libwal/staged_output.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::TempDir;

TEST(WriteNewFile, TheFileHoldsItsBytes) {
  TempDir dir;
  const std::string path = dir.path() + "/f";
  ASSERT_TRUE(wal::WriteNewFile(path, "some bytes").ok());
  EXPECT_EQ(*wal::ReadFileToString(path, UINT64_MAX), "some bytes");
}

TEST(WriteNewFile, AFileThatExistsIsRefusedAndKept) {
  TempDir dir;
  const std::string there = dir.path() + "/there";
  ASSERT_TRUE(wal::WriteNewFileSynced(there, "mine").ok());
  const wal::Status s = wal::WriteNewFile(there, "theirs");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(there), std::string::npos) << s.message();
  EXPECT_EQ(*wal::ReadFileToString(there, UINT64_MAX), "mine");
}

TEST(StagedOutput, FilesSyncedAtOnceAreAllThereWhenPublished) {
  TempDir dir;
  const std::string out = dir.path() + "/a/out";
  {
    auto staged = wal::StagedOutput::Begin(out);
    ASSERT_TRUE(staged.ok()) << staged.status().message();
    std::filesystem::create_directories(staged->dir() + "/node/data");
    for (size_t i = 0; i < 300; ++i) {
      ASSERT_TRUE(wal::WriteNewFile(staged->dir() + "/node/data/f" + std::to_string(i), std::string(i, 'x')).ok());
    }
    ASSERT_TRUE(staged->SyncAll().ok());
    ASSERT_TRUE(staged->Publish().ok());
  }
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
  EXPECT_FALSE(wal::IsUnfinishedOutput(out));
  for (size_t i = 0; i < 300; ++i) {
    EXPECT_EQ(*wal::ReadFileToString(out + "/node/data/f" + std::to_string(i), UINT64_MAX), std::string(i, 'x'));
  }
}

TEST(StagedOutput, AnOutputSyncedButNotPublishedIsDiscarded) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  {
    auto staged = wal::StagedOutput::Begin(out);
    ASSERT_TRUE(staged.ok()) << staged.status().message();
    ASSERT_TRUE(wal::WriteNewFile(staged->dir() + "/f", "x").ok());
    ASSERT_TRUE(staged->SyncAll().ok());
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
}

}  // namespace
