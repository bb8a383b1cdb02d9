// Caches by name, and rows out: data prints a cache's name beside its id where the directory's
// cluster.json names it, and data --cache and restore --cache take a name or an id, of
// walcut's clusters and of Apache Ignite's directories alike, as dump --cache does; a name
// the input does not have is a usage error listing the caches it has.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

const std::string kFullNodes = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/full/nodes";

std::string SmallCluster(const TempDir& tmp) {
  const std::string c = tmp.path() + "/c";
  EXPECT_EQ(RunCli({"simulate", "-q", "-o", c, "--nodes", "2", "--clients", "0", "--partitions", "2", "--accounts", "6",
                    "--txs", "20", "--cuts", "1"})
                .code,
            0);
  return c;
}

TEST(CacheNames, DataPrintsTheNameBesideTheId) {
  TempDir tmp;
  const std::string c = SmallCluster(tmp);
  auto text = RunCli({"data", "--summary", c});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("node-0 cache 1 (accounts) partition 0 "), std::string::npos) << text.out;
  auto json = RunCli({"data", "--json", "--summary", c});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["nodes"][0]["partitions"][0]["cache_name"], "accounts");
  // A restore's cluster.json names them too.
  ASSERT_EQ(RunCli({"restore", "-q", c, "--latest", "-o", tmp.path() + "/r"}).code, 0);
  auto restored = RunCli({"data", "--summary", tmp.path() + "/r"});
  EXPECT_NE(restored.out.find("cache 1 (accounts) partition"), std::string::npos) << restored.out;
}

TEST(CacheNames, DataCacheTakesANameOrAnIdAndRefusesOneItDoesNotHave) {
  TempDir tmp;
  const std::string c = SmallCluster(tmp);
  const std::string all = RunCli({"data", "--summary", c}).out;
  EXPECT_EQ(RunCli({"data", "--summary", "--cache", "accounts", c}).out, all);
  EXPECT_EQ(RunCli({"data", "--summary", "--cache", "1", c}).out, all);
  auto missing = RunCli({"data", "--summary", "--cache", "orders", c});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("no cache \"orders\""), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("its caches: accounts (1)"), std::string::npos) << missing.err;
  EXPECT_EQ(RunCli({"data", "--summary", "--cache", "2", c}).code, 2);
}

TEST(CacheNames, RestoreCacheByNameRestoresOnlyThatCacheOfIgnite) {
  TempDir tmp;
  const std::string out = tmp.path() + "/r";
  auto r = RunCli({"restore", kFullNodes, "--latest", "--cache", "vault", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  auto data = RunCli({"data", "--json", "--summary", out});
  ASSERT_EQ(data.code, 0) << data.err;
  const auto j = nlohmann::json::parse(data.out);
  size_t copies = 0;
  for (const auto& n : j["nodes"]) {
    for (const auto& p : n["partitions"]) {
      EXPECT_EQ(p["cache"], 111981106) << p.dump();  // Ignite's id of "vault"
      ++copies;
    }
  }
  EXPECT_GT(copies, 0u);
  // By its id, the same restore.
  auto by_id = RunCli({"restore", kFullNodes, "--latest", "--cache", "111981106", "-o", tmp.path() + "/r2"});
  ASSERT_EQ(by_id.code, 0) << by_id.err;
  EXPECT_EQ(RunCli({"data", "--json", "--summary", tmp.path() + "/r2"}).out, data.out);
}

TEST(CacheNames, RestoreCacheThatIsNoneOfTheInputsIsAUsageErrorListingThem) {
  TempDir tmp;
  auto ignite = RunCli({"restore", kFullNodes, "--latest", "--cache", "orders", "-o", tmp.path() + "/r"});
  EXPECT_EQ(ignite.code, 2);
  EXPECT_NE(ignite.err.find("no cache \"orders\""), std::string::npos) << ignite.err;
  EXPECT_NE(ignite.err.find("vault (111981106)"), std::string::npos) << ignite.err;
  EXPECT_NE(ignite.err.find("events (-1291329255)"), std::string::npos) << ignite.err;
  const std::string c = SmallCluster(tmp);
  auto own = RunCli({"restore", c, "--latest", "--cache", "orders", "-o", tmp.path() + "/r"});
  EXPECT_EQ(own.code, 2);
  EXPECT_NE(own.err.find("its caches: accounts (1)"), std::string::npos) << own.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/r"));
}

// data --format jsonl|csv: one row per key, the same rows as the text, for walcut's restores
// and Ignite's snapshots; CSV quotes what needs it.
TEST(DataRows, JsonlAndCsvHaveOneRowPerKeyOfTheText) {
  TempDir tmp;
  const std::string c = SmallCluster(tmp);
  auto text = RunCli({"data", c});
  size_t keys = 0;
  for (size_t at = 0; (at = text.out.find("\n  ", at)) != std::string::npos; ++at) ++keys;
  ASSERT_GT(keys, 0u);
  auto jsonl = RunCli({"data", "--format", "jsonl", c});
  ASSERT_EQ(jsonl.code, 0) << jsonl.err;
  size_t rows = 0, at = 0;
  while (at < jsonl.out.size()) {
    const size_t end = jsonl.out.find('\n', at);
    const auto row = nlohmann::json::parse(jsonl.out.substr(at, end - at));
    EXPECT_EQ(row["cache_name"], "accounts");
    EXPECT_NE(text.out.find("\"" + row["key"].get<std::string>() + "\" = \"" + row["value"].get<std::string>() + "\""),
              std::string::npos)
        << row.dump();
    ++rows;
    at = end + 1;
  }
  EXPECT_EQ(rows, keys);
  auto csv = RunCli({"data", "--format", "csv", c});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "node,cache,cache_name,partition,key,value,counter");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.out.begin(), csv.out.end(), '\n')), keys + 1);
  // Ignite's binary values hold quotes and commas: quoted, their quotes doubled.
  auto ignite = RunCli({"data", "--format", "csv", "--snapshot", "snap", "--cache", "vault", kFullNodes});
  ASSERT_EQ(ignite.code, 0) << ignite.err;
  EXPECT_NE(ignite.out.find(",vault,"), std::string::npos);
  EXPECT_NE(ignite.out.find("\"binary(-1075729459 org.walcut.ignite.Account){balance="), std::string::npos)
      << ignite.out.substr(0, 400);
  EXPECT_NE(ignite.out.find(",owner=\"\"owner-"), std::string::npos) << ignite.out.substr(0, 400);
  EXPECT_EQ(RunCli({"data", "--format", "csv", "--summary", c}).code, 2);
  EXPECT_EQ(RunCli({"data", "--format", "csv", "--json", c}).code, 2);
}

// dump --cache keeps only that cache's entries, by name or by Ignite's signed id; a name the
// input does not have is a usage error listing its caches.
TEST(CacheNames, DumpCacheKeepsThatCachesEntries) {
  const std::string work = kFullNodes + "/server-0/work";
  auto vault = RunCli({"dump", "--json", "--cache", "vault", work});
  ASSERT_EQ(vault.code, 0) << vault.err;
  size_t entries = 0;
  for (size_t at = 0; (at = vault.out.find("\"cache\":", at)) != std::string::npos; ++at) {
    ++entries;
    EXPECT_EQ(vault.out.compare(at, 18, "\"cache\":111981106,"), 0) << vault.out.substr(at, 40);
  }
  EXPECT_GT(entries, 0u);
  EXPECT_EQ(RunCli({"dump", "--json", "--cache", "111981106", work}).out, vault.out);
  auto events = RunCli({"dump", "--stats=cache", "--cache", "-1291329255", work});
  ASSERT_EQ(events.code, 0) << events.err;
  EXPECT_EQ(events.out.find("111981106"), std::string::npos) << events.out;  // events' rows only
  EXPECT_NE(events.out.find("\nTotal "), std::string::npos) << events.out;
  // Names beside the ids, in text and JSON.
  auto text = RunCli({"dump", "--cache", "vault", "--limit", "1", work});
  EXPECT_NE(text.out.find("[cache 111981106 (vault) part "), std::string::npos) << text.out;
  EXPECT_NE(vault.out.find("\"cache\":111981106,\"cache_name\":\"vault\","), std::string::npos)
      << vault.out.substr(0, 400);
  auto none = RunCli({"dump", "--cache", "nope", work});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no cache \"nope\""), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("vault (111981106)"), std::string::npos) << none.err;
}

// gaps names each cache beside its id where the cluster file names it.
TEST(CacheNames, GapsPrintsTheNameBesideTheId) {
  TempDir tmp;
  const std::string c = tmp.path() + "/p";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--crash", "node-1@2500", "--segment-size", "256K"}).code, 0);
  auto text = RunCli({"gaps", c});
  EXPECT_NE(text.out.find("node-1 cache 1 (accounts) partition "), std::string::npos) << text.out;
  auto json = RunCli({"gaps", "--json", c});
  EXPECT_NE(json.out.find("\"cache\":1,\"cache_name\":\"accounts\","), std::string::npos) << json.out.substr(0, 300);
}

// verify --cache checks only that cache's copies (of Ignite's snapshot, its group's): a
// damaged copy of another cache fails verify, and not verify --cache of this one.
TEST(CacheNames, VerifyCacheChecksOnlyThatCache) {
  TempDir tmp;
  const std::string out = tmp.path() + "/r";
  ASSERT_EQ(RunCli({"restore", kFullNodes, "--increment", "2", "-o", out, "-q"}).code, 0);
  std::string vault_file;
  for (const auto& e : std::filesystem::directory_iterator(out + "/server_0/data")) {
    if (e.path().filename().string().rfind("part-111981106-", 0) == 0) vault_file = e.path();
  }
  ASSERT_FALSE(vault_file.empty());
  {
    std::fstream f(vault_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  EXPECT_EQ(RunCli({"verify", out}).code, 1);
  auto bank = RunCli({"verify", "--cache", "bank", out});
  EXPECT_EQ(bank.code, 0) << bank.out << bank.err;
  EXPECT_EQ(RunCli({"verify", "--cache", "vault", out}).code, 1);
  auto notes = RunCli({"verify", "--json", "--snapshot", "snap", "--cache", "notes", kFullNodes});
  ASSERT_EQ(notes.code, 0) << notes.err;
  auto all = RunCli({"verify", "--json", "--snapshot", "snap", kFullNodes});
  EXPECT_LT(nlohmann::json::parse(notes.out)["partitions"].get<uint64_t>(),
            nlohmann::json::parse(all.out)["partitions"].get<uint64_t>());
}

}  // namespace
