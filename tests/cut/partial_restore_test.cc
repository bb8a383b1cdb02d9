// restore --cache/--partition: the copies restored are byte for byte those a whole
// restore writes for them, nothing else is written, the manifest says so, and verify
// holds the output to that subset.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::ReadFile;
using testing_support::RunCli;
using testing_support::TempDir;

// Each node's partition files under a restored directory: node/file -> bytes.
std::map<std::string, std::string> DataFiles(const std::string& out) {
  std::map<std::string, std::string> files;
  for (const auto& node : fs::directory_iterator(out)) {
    if (!fs::is_directory(node.path() / "data")) continue;
    for (const auto& f : fs::directory_iterator(node.path() / "data")) {
      files[node.path().filename().string() + "/" + f.path().filename().string()] = ReadFile(f.path().string());
    }
  }
  return files;
}

TEST(PartialRestore, TheCopiesRestoredAreThoseOfAWholeRestoreAndVerifyHoldsTheSubset) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--nodes", "4", "--backups", "1", "--partitions", "16", "--txs", "3000",
                    "--cuts", "2", "--rollback-rate", "0.1", "--seed", "9"})
                .code,
            0);
  const std::string whole = dir.path() + "/whole", part = dir.path() + "/part";
  ASSERT_EQ(RunCli({"restore", "-q", "--latest", "-o", whole, c}).code, 0);
  auto r = RunCli({"restore", "--latest", "-o", part, "--partition", "3", "--partition", "11", c});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("only partitions 3, 11"), std::string::npos) << r.out;
  const auto all = DataFiles(whole);
  const auto some = DataFiles(part);
  size_t want = 0;
  for (const auto& [name, bytes] : all) {
    const bool selected = name.find("-00003.dat") != std::string::npos || name.find("-00011.dat") != std::string::npos;
    want += selected;
    if (selected) {
      ASSERT_TRUE(some.count(name)) << name << " was not restored";
      EXPECT_EQ(some.at(name), bytes) << name << " differs from the whole restore's";
    }
  }
  EXPECT_EQ(some.size(), want) << "only the partitions asked for are written";
  ASSERT_GE(want, 4u);  // two partitions, a primary and a backup each
  const auto manifest = nlohmann::json::parse(ReadFile(part + "/restore.json"));
  EXPECT_EQ(manifest["only_partitions"], nlohmann::json::array({3, 11}));
  auto v = RunCli({"verify", "--json", part});
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  // A copy of a partition not restored, put there: verify names it.
  std::string extra;
  for (const auto& [name, bytes] : all) {
    if (!some.count(name)) {
      extra = name;
      break;
    }
  }
  ASSERT_FALSE(extra.empty());
  fs::copy_file(whole + "/" + extra.substr(0, extra.find('/')) + "/data/" + extra.substr(extra.find('/') + 1),
                part + "/" + extra.substr(0, extra.find('/')) + "/data/" + extra.substr(extra.find('/') + 1));
  v = RunCli({"verify", part});
  EXPECT_NE(v.code, 0) << v.out;
  // The subset must exist.
  EXPECT_EQ(RunCli({"restore", "--latest", "--dry-run", "--cache", "99", c}).code, 2);
  EXPECT_EQ(RunCli({"restore", "--latest", "--dry-run", "--partition", "16", c}).code, 2);
  EXPECT_EQ(RunCli({"restore", "--latest", "--dry-run", "--partition", "x", c}).code, 2);
  // And is checked before any WAL is read: with a node's WAL gone (which makes every cut
  // unverifiable, exit 1, once read), a subset that does not exist is still the error.
  fs::rename(c + "/node-0/wal", c + "/node-0/wal.away");
  for (const std::vector<std::string>& subset :
       {std::vector<std::string>{"--cache", "99"}, {"--partition", "16"}, {"--node", "node-9"}}) {
    std::vector<std::string> args = {"restore", "--latest", "-o", dir.path() + "/none", c};
    args.insert(args.end(), subset.begin(), subset.end());
    auto early = RunCli(args);
    EXPECT_EQ(early.code, 2) << subset[0] << ": " << early.err;
    EXPECT_NE(early.err.find(subset[0] == "--node" ? "no node \"node-9\"" : subset[0] + ":"), std::string::npos)
        << early.err;
  }
  EXPECT_EQ(RunCli({"restore", "--latest", "-o", dir.path() + "/none", c}).code, 1);
  EXPECT_FALSE(fs::exists(dir.path() + "/none"));
}

}  // namespace
