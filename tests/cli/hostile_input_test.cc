// Hostile input and its messages: names that would escape the output, counters that
// would overflow, side files of the wrong shape, numbers out of range, unknown
// commands. Each ends in a one-line, located error and a documented exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libwal/format.h"
#include "libwal/record.h"
#include "libwal/wal_writer.h"
#include "sim/simulate.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::ReadFile;
using testing_support::RunCli;
using testing_support::TempDir;

// A small cluster directory.
std::string Cluster(const TempDir& dir, const std::string& name = "c") {
  const std::string c = dir.path() + "/" + name;
  sim::SimConfig cfg;
  cfg.out_dir = c;
  cfg.txs = 1500;
  cfg.accounts = 100;
  cfg.cuts = 2;
  cfg.partitions = 8;
  EXPECT_TRUE(sim::Simulate(cfg).ok());
  return c;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

size_t LineCount(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(HostileInput, ANodeNameThatWouldEscapeTheOutputIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string c = Cluster(dir);
  fs::create_directories(dir.path() + "/elsewhere/node-0/data");
  Write(dir.path() + "/elsewhere/node-0/data/keep", "the live node's file");
  // node-0 renamed "../elsewhere/node-0" in cluster.json, its directory moved to match.
  std::string text = ReadFile(c + "/cluster.json");
  size_t at = 0;
  while ((at = text.find("\"node-0\"", at)) != std::string::npos) {
    text.replace(at, 8, "\"../elsewhere/node-0\"");
    at += 20;
  }
  Write(c + "/cluster.json", text);
  auto r = RunCli({"restore", c, "--latest", "-o", dir.path() + "/out"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot be a node name"), std::string::npos) << r.err;
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/out"));
  EXPECT_EQ(ReadFile(dir.path() + "/elsewhere/node-0/data/keep"), "the live node's file");
  for (const char* cmd : {"check", "cuts", "verify", "txs", "gaps", "data", "dump"}) {
    EXPECT_EQ(RunCli({cmd, c}).code, 3) << cmd;
  }
}

TEST(HostileInput, ClusterFilesOfTheWrongShapeAreRefusedNamingTheField) {
  TempDir dir;
  const std::string c = Cluster(dir);
  const std::string good = ReadFile(c + "/cluster.json");
  auto doc = nlohmann::json::parse(good);
  struct Case {
    std::string what;
    std::function<void(nlohmann::json&)> edit;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"schema 99", [](nlohmann::json& j) { j["schema"] = 99; }, "schema 99 is not supported"},
      {"no nodes", [](nlohmann::json& j) { j.erase("nodes"); }, "nodes: missing"},
      {"a role of 123", [](nlohmann::json& j) { j["nodes"][0]["role"] = 123; }, "nodes[0].role: expected a string"},
      {"an order of 70000", [](nlohmann::json& j) { j["nodes"][1]["order"] = 70000; },
       "nodes[1].order: 70000 is larger"},
      {"a name twice", [](nlohmann::json& j) { j["nodes"][1]["name"] = "node-0"; }, "appears twice"},
      {"an unknown holder", [](nlohmann::json& j) { j["topology_versions"][0]["assignment"][0][0] = "node-9"; },
       "is not a server"},
      {"a 300-byte name", [](nlohmann::json& j) { j["nodes"][0]["name"] = std::string(300, 'n'); }, "more than 255"},
  };
  for (const auto& k : cases) {
    nlohmann::json j = doc;
    k.edit(j);
    Write(c + "/cluster.json", j.dump(2));
    for (const char* cmd : {"check", "verify", "restore"}) {
      std::vector<std::string> args = {cmd, c};
      if (std::string(cmd) == "restore") args = {cmd, c, "--latest", "-o", dir.path() + "/out"};
      auto r = RunCli(args);
      EXPECT_EQ(r.code, 3) << k.what << " " << cmd << ": " << r.err;
      EXPECT_NE(r.err.find(k.expect), std::string::npos) << k.what << " " << cmd << ": " << r.err;
      EXPECT_NE(r.err.find("cluster.json"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(dir.path() + "/out"));
    }
  }
  // Not an object; nested a million deep; not JSON at all.
  for (const std::string& text :
       {std::string("[]"), std::string(1000000, '[') + std::string(1000000, ']'), std::string("{\"schema\":")}) {
    Write(c + "/cluster.json", text);
    for (const char* cmd : {"check", "verify", "txs", "data"}) {
      auto r = RunCli({cmd, c});
      EXPECT_EQ(r.code, 3) << cmd << " on " << text.substr(0, 12);
      EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    }
  }
  // A ghost node listed, with no directory: check names it; verify expects its copies
  // only where an assignment puts them.
  Write(c + "/cluster.json", good);
  EXPECT_EQ(RunCli({"check", "-q", c}).code, 0);
}

// A record whose counters would overflow: refused by the decoder with its place, so no
// command loops or allocates on it.
TEST(HostileInput, CountersThatWouldOverflowAreCorruptRecords) {
  TempDir dir;
  const std::string wal_dir = dir.path() + "/n/wal";
  auto w = wal::WalWriter::Create(wal_dir, wal::Uuid{1, 2}, 1, wal::WriterOptions{});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(wal::ClusterSnapshotRecord{1, "base"}).ok());
  ASSERT_TRUE((*w)->Append(wal::RollbackRecord{1, 3, UINT64_MAX, 1}).ok());
  ASSERT_TRUE((*w)->Append(wal::RollbackRecord{1, 3, uint64_t{1} << 63, 5}).ok());
  wal::TxRecord t;
  t.state = wal::TxState::kPrepared;
  t.xid = wal::TxId{1, 1, 1};
  t.counters.push_back({1, 3, UINT64_MAX - 1, 4});
  ASSERT_TRUE((*w)->Append(t).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto dump = RunCli({"dump", wal_dir});
  EXPECT_EQ(dump.code, 1);
  EXPECT_EQ(LineCount(dump.err), 3u) << dump.err;
  EXPECT_NE(dump.err.find("counter range out of bounds"), std::string::npos) << dump.err;
  EXPECT_NE(dump.err.find("0000000000000000.wal\": corruption at offset"), std::string::npos) << dump.err;
  EXPECT_EQ(RunCli({"gaps", wal_dir + "/.."}).code, 1);
  EXPECT_EQ(RunCli({"check", wal_dir}).code, 1);
}

TEST(HostileInput, ASnapshotNameLongerThanAFileNameIsACorruptRecord) {
  TempDir dir;
  const std::string wal_dir = dir.path() + "/n/wal";
  auto w = wal::WalWriter::Create(wal_dir, wal::Uuid{1, 2}, 1, wal::WriterOptions{});
  ASSERT_TRUE(w.ok());
  const std::string name(1 << 20, 'x');
  ASSERT_TRUE((*w)->Append(wal::ClusterSnapshotRecord{1, name}).ok());
  ASSERT_TRUE((*w)->Append(wal::ClusterSnapshotRecord{2, "../up"}).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto dump = RunCli({"dump", "-q", wal_dir});
  EXPECT_EQ(dump.code, 1);
  EXPECT_EQ(LineCount(dump.err), 2u) << dump.err;
  EXPECT_NE(dump.err.find("snapshot name"), std::string::npos) << dump.err;
}

TEST(HostileInput, NumbersOutOfRangeAreUsageErrorsNamingTheFlag) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  std::vector<Case> cases = {
      {{"restore", c, "--increment", "4294967297", "-o", dir.path() + "/x"}, "--increment"},
      {{"restore", c, "--increment", "0", "-o", dir.path() + "/x"}, "--increment"},
      {{"restore", c, "--jobs", "0", "--latest", "-o", dir.path() + "/x"}, "--jobs"},
      {{"dump", c, "--partition", "4294967296"}, "--partition"},
      {{"dump", c, "--limit", "-1"}, "--limit"},
      {{"dump", c, "--follow", "--follow-interval", "0"}, "--follow-interval"},
      {{"data", c, "--partition", "-3"}, "--partition"},
      {{"simulate", "-o", c, "--balance", "99999999999999999999"}, "--balance"},
      {{"simulate", "-o", c, "--seed", "-1"}, "--seed"},
      {{"simulate", "-o", c, "--txs", "99999999999999999999"}, "--txs"},
      {{"simulate", "-o", c, "--txs", "1e6"}, "--txs"},
      {{"simulate", "-o", c, "--lock-timeout", "0"}, "--lock-timeout"},
      {{"simulate", "-o", c, "--rollback-rate", "1.5"}, "--rollback-rate"},
      {{"simulate", "-o", c, "--close-rate", "nan"}, "--close-rate"},
      {{"simulate", "-o", c, "--accounts", "10000000", "--balance", "1000000000000"}, "--accounts"},
      {{"cuts", c, "--svg", "x.svg", "--from", "-1"}, "--from"},
  };
  for (const auto& k : cases) {
    auto r = RunCli(k.args);
    EXPECT_EQ(r.code, 2) << k.args[0] << " " << k.flag << ": " << r.err;
    EXPECT_NE(r.err.find(k.flag), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(c));
  }
  // In range, accepted.
  EXPECT_EQ(RunCli({"simulate", "-q", "-o", c, "--txs", "100", "--seed", "18446744073709551615"}).code, 0);
}

TEST(HostileInput, UnknownCommandsAndHelp) {
  auto bogus = RunCli({"bogus"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_NE(bogus.err.find("unknown command \"bogus\""), std::string::npos) << bogus.err;
  EXPECT_EQ(bogus.err.find("did you mean"), std::string::npos) << bogus.err;  // nothing near it
  // A slip of a command or an option is answered with the closest one.
  auto chek = RunCli({"chek", "c"});
  EXPECT_EQ(chek.code, 2);
  EXPECT_NE(chek.err.find("did you mean \"walcut check\"?"), std::string::npos) << chek.err;
  auto jsno = RunCli({"check", "--jsno", "c"});
  EXPECT_EQ(jsno.code, 2);
  EXPECT_NE(jsno.err.find("did you mean --json?"), std::string::npos) << jsno.err;
  // Each command's help names its man page, and Ignite's where the command reads it.
  auto cuts_help = RunCli({"cuts", "--help"});
  EXPECT_NE(cuts_help.out.find("See walcut-cuts(1); for Apache Ignite's"), std::string::npos) << cuts_help.out;
  EXPECT_NE(RunCli({"simulate", "--help"}).out.find("See walcut-simulate(1)."), std::string::npos);
  auto expire = RunCli({"expire", "--help"});
  EXPECT_EQ(expire.code, 2);
  EXPECT_TRUE(expire.out.empty());
  auto help = RunCli({"help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("restore"), std::string::npos);
  auto help_dump = RunCli({"help", "dump"});
  EXPECT_EQ(help_dump.code, 0);
  EXPECT_NE(help_dump.out.find("--follow"), std::string::npos);
  EXPECT_EQ(RunCli({"help", "nothing"}).code, 2);
}

TEST(HostileInput, QuietMeansNothingOnStandardOutputJsonOrNot) {
  TempDir dir;
  const std::string c = Cluster(dir);
  for (const char* cmd : {"check", "cuts", "gaps", "txs", "verify", "data", "dump"}) {
    auto r = RunCli({cmd, "-q", "--json", c});
    EXPECT_TRUE(r.out.empty()) << cmd << ": " << r.out.substr(0, 80);
  }
  auto restore = RunCli({"restore", "-q", "--json", c, "--latest", "-o", dir.path() + "/r"});
  EXPECT_EQ(restore.code, 0);
  EXPECT_TRUE(restore.out.empty());
  auto plan = RunCli({"restore", "-q", "--json", c, "--latest", "--dry-run"});
  EXPECT_EQ(plan.code, 0);
  EXPECT_TRUE(plan.out.empty()) << plan.out.substr(0, 80);
}

TEST(HostileInput, MessagesNameWhatIsMissing) {
  TempDir dir;
  auto v = RunCli({"verify", dir.path() + "/nothing"});
  EXPECT_EQ(v.code, 3);
  EXPECT_NE(v.err.find("does not exist"), std::string::npos) << v.err;
  const std::string c = Cluster(dir);
  auto r = RunCli({"restore", c + "/node-0", "--latest", "-o", dir.path() + "/r"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find(c + "/node-0/node-0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("restore takes the cluster directory"), std::string::npos) << r.err;
}

TEST(HostileInput, SummariesOfTheWrongShapeAreRefused) {
  TempDir dir;
  const std::string c = Cluster(dir);
  const std::string f = dir.path() + "/n0.json";
  ASSERT_EQ(RunCli({"cuts", c + "/node-0", "-q", "--summary", f, "--summary-format", "json"}).code, 0);
  auto doc = nlohmann::json::parse(ReadFile(f));
  auto expect_refused = [&](const nlohmann::json& j, const std::string& why) {
    Write(f, j.dump());
    auto r = RunCli({"check", "--summaries", f});
    EXPECT_EQ(r.code, 3) << why << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  };
  nlohmann::json j = doc;
  j["order"] = 70000;
  expect_refused(j, "order: 70000 is larger");
  j = doc;
  j["cuts"].push_back(j["cuts"][0]);
  expect_refused(j, "listed twice");
  j = doc;
  std::swap(j["cuts"][0]["start"], j["cuts"][0]["finish"]);
  expect_refused(j, "Finish record precedes its Start record");
  j = doc;
  j["cuts"][0]["txs"][0][1] = "X";
  expect_refused(j, "expected \"B\" or \"A\"");
  j = doc;
  j["cuts"][0]["problems"] = nlohmann::json::array(
      {{{"kind", "side-mismatch"}, {"tx", nullptr}, {"at", "0:0"}, {"detail", "a kind only the cluster check finds"}}});
  expect_refused(j, "not a kind of problem a node's WAL shows: \"side-mismatch\"");
  // Two summaries claiming one node order.
  const std::string g = dir.path() + "/n1.json";
  ASSERT_EQ(RunCli({"cuts", c + "/node-1", "-q", "--summary", g, "--summary-format", "json"}).code, 0);
  Write(f, doc.dump());
  auto other = nlohmann::json::parse(ReadFile(g));
  other["order"] = doc["order"];
  Write(g, other.dump());
  auto r = RunCli({"check", "--summaries", f, g});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("has order"), std::string::npos) << r.err;
}

// The binary summary: damage anywhere in it refuses the check, located, with no verdict
// printed, whether the damage is in the node's frame or in a cut read part way through.
TEST(HostileInput, DamagedBinarySummariesAreRefused) {
  TempDir dir;
  const std::string c = Cluster(dir);
  const std::string f = dir.path() + "/n0.sum", g = dir.path() + "/n1.sum";
  ASSERT_EQ(RunCli({"cuts", c + "/node-0", "-q", "--summary", f}).code, 0);
  ASSERT_EQ(RunCli({"cuts", c + "/node-1", "-q", "--summary", g}).code, 0);
  const std::string sound = ReadFile(f);
  ASSERT_EQ(sound.substr(0, 8), "WCSUMMRY");
  ASSERT_EQ(RunCli({"check", "--summaries", f, g}).code, 0);
  auto expect_refused = [&](const std::string& bytes, const std::string& why) {
    Write(f, bytes);
    auto r = RunCli({"check", "--summaries", f, g});
    EXPECT_EQ(r.code, 3) << why << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << why;
  };
  std::string b = sound;
  b[b.size() - 3] ^= 0x20;  // inside the last cut's frame
  expect_refused(b, "checksum mismatch");
  b = sound;
  b[30] ^= 0x01;  // inside the node's frame
  expect_refused(b, "at offset 16: the node's frame: checksum mismatch");
  expect_refused(sound.substr(0, sound.size() - 5), "cut short inside cut");
  expect_refused(sound + "x", "1 bytes after its last cut");
  expect_refused(sound.substr(0, 12), "shorter than its header");
  b = sound;
  b[8] = 4;
  expect_refused(b, "of schema 4, which this walcut does not read");
  Write(f, sound);
  EXPECT_EQ(RunCli({"check", "--summaries", f, g}).code, 0);
}

}  // namespace
