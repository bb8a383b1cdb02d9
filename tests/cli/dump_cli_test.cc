// `walcut dump` behaviour that golden files do not pin: exit codes, filters, errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "libwal/segment_file.h"
#include "libwal/wal_writer.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tools/dump.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

std::string Copy(const TempDir& dir) {
  std::string dst = dir.path() + "/tiny";
  fs::copy(std::string(WALCUT_SOURCE_DIR) + "/testdata/tiny", dst, fs::copy_options::recursive);
  return dst;
}

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(DumpCli, VersionAndHelp) {
  auto v = RunCli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("walcut ", 0), 0u);
  auto h = RunCli({"dump", "--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--follow"), std::string::npos);
}

TEST(DumpCli, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCli({}).code, 2);
  EXPECT_EQ(RunCli({"dump"}).code, 2);
  EXPECT_EQ(RunCli({"dump", "--nope", "x"}).code, 2);
  auto bad = RunCli({"dump", "--from", "12", "--tx", "x", "somewhere"});
  EXPECT_EQ(bad.code, 2);
  // Every validation error is reported, not only the first.
  EXPECT_NE(bad.err.find("--from"), std::string::npos);
  EXPECT_NE(bad.err.find("--tx"), std::string::npos);
}

// --type list names every type --type takes, and --type takes every name it lists.
TEST(DumpCli, TypeListNamesWhatTypeTakes) {
  TempDir dir;
  const std::string tiny = Copy(dir);
  auto r = RunCli({"dump", "--type", "list", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  size_t walcut = 0, ignite = 0;
  for (const auto& t : j["types"]) {
    (t["format"] == "walcut" ? walcut : ignite) += 1;
    std::vector<std::string> names = {t["name"].get<std::string>()};
    if (!t["alias"].is_null()) names.push_back(t["alias"].get<std::string>());
    for (const auto& n : names) EXPECT_EQ(RunCli({"dump", "-q", "--stats", "--type", n, tiny}).code, 0) << n;
  }
  EXPECT_EQ(walcut, 8u);
  EXPECT_GE(ignite, 60u);
  auto text = RunCli({"dump", "--type", "list"});
  EXPECT_EQ(Lines(text.out), j["types"].size());
  EXPECT_NE(text.out.find("walcut  76 INCREMENTAL_SNAPSHOT_START_RECORD cut-start\n"), std::string::npos) << text.out;
  EXPECT_EQ(RunCli({"dump", "--type", "nope", tiny}).code, 2);
  auto with_path = RunCli({"dump", "--type", "list", "--stats", tiny});
  EXPECT_EQ(with_path.code, 2);
  EXPECT_NE(with_path.err.find("reads no PATH"), std::string::npos) << with_path.err;
}

TEST(DumpCli, MissingPathExitsThree) {
  auto r = RunCli({"dump", "/nonexistent/walcut"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("\"/nonexistent/walcut\""), std::string::npos);
}

TEST(DumpCli, CorruptionExitsOneWithFileAndOffset) {
  TempDir dir;
  std::string tiny = Copy(dir);
  std::string seg = tiny + "/node-0/wal/0000000000000000.wal";
  {
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(300);
    char c = 0;
    f.read(&c, 1);
    f.seekp(300);
    c = static_cast<char>(c ^ 0x40);
    f.write(&c, 1);
  }
  auto r = RunCli({"dump", tiny + "/node-0"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("0000000000000000.wal"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("corruption at offset"), std::string::npos) << r.err;
  // Records after the damaged one are still printed.
  EXPECT_NE(r.out.find("INCREMENTAL_SNAPSHOT_FINISH_RECORD"), std::string::npos);
}

void FlipByte(const std::string& file, std::streamoff at) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(at);
  char c = 0;
  f.read(&c, 1);
  f.seekp(at);
  c = static_cast<char>(c ^ 0x40);
  f.write(&c, 1);
}

// `dump --stats` reads the nodes side by side; what it says is what reading them one
// after another says: each node's messages together, in input order, and the sums.
TEST(DumpCli, StatsOfSeveralNodesReportInInputOrder) {
  TempDir dir;
  std::string tiny = Copy(dir);
  FlipByte(tiny + "/node-0/wal/0000000000000000.wal", 300);
  FlipByte(tiny + "/node-0/wal/0000000000000000.wal", 900);
  FlipByte(tiny + "/node-1/wal/0000000000000001.wal", 400);
  auto files = wal::ListSegments(tiny + "/node-1/wal");
  fs::resize_file(files->back().path, fs::file_size(files->back().path) - 5);
  auto all = RunCli({"dump", "--stats", "--json", tiny});
  auto n0 = RunCli({"dump", "--stats", "--json", tiny + "/node-0"});
  auto n1 = RunCli({"dump", "--stats", "--json", tiny + "/node-1"});
  EXPECT_EQ(all.code, 1);
  EXPECT_EQ(all.err, n0.err + n1.err);
  EXPECT_NE(n0.err.find("node-0"), std::string::npos) << n0.err;
  EXPECT_NE(n1.err.find("torn tail"), std::string::npos) << n1.err;
  auto j = nlohmann::json::parse(all.out);
  auto j0 = nlohmann::json::parse(n0.out);
  auto j1 = nlohmann::json::parse(n1.out);
  EXPECT_EQ(j["nodes"], 2);
  for (const char* k : {"segments", "records", "bytes", "torn_tails", "errors"}) {
    EXPECT_EQ(j[k].get<uint64_t>(), j0[k].get<uint64_t>() + j1[k].get<uint64_t>()) << k;
  }
  EXPECT_EQ(j["errors"].get<uint64_t>(), 3u) << all.err;
  EXPECT_EQ(j["torn_tails"].get<uint64_t>(), 1u);
}

// A node WAL of `segments` segments of about equal size, written by node `node`.
std::string NodeWal(const std::string& dir, int segments, uint64_t node = 1) {
  const std::string wal_dir = dir + "/wal";
  wal::WriterOptions wo;
  wo.segment_size = 16 << 10;
  auto w = wal::WalWriter::Create(wal_dir, wal::Uuid{0x1111222233334444ULL, node}, 1, wo);
  EXPECT_TRUE(w.ok());
  for (uint64_t order = 1;; ++order) {
    wal::TxRecord t;
    t.xid = wal::TxId{1, 1, order};
    t.state = wal::TxState::kCommitted;
    auto at = (*w)->Append(t);
    EXPECT_TRUE(at.ok());
    if (!at.ok() || (at->segment == static_cast<uint64_t>(segments - 1) && at->offset > (8u << 10))) break;
  }
  EXPECT_TRUE((*w)->Close().ok());
  return wal_dir;
}

// `dump` of one node read in parts side by side (tools::DumpOptions parts_min_bytes 0)
// and by one reader: the same output, messages and exit status, as a table (--stats),
// text and JSON, and filtered.
void ExpectPartsReadAsOne(const std::string& wal_dir, const std::string& what) {
  for (int variant = 0; variant < 5; ++variant) {
    tools::DumpOptions o;
    o.paths = {wal_dir};
    o.stats = variant < 2;
    o.json = variant == 1 || variant == 3;
    if (variant == 4) o.types = {static_cast<uint8_t>(wal::RecordType::kTx)};
    tools::StringSink out[2], err[2];
    int code[2];
    for (int k = 0; k < 2; ++k) {
      o.parts_min_bytes = k == 0 ? 0 : UINT64_MAX;
      tools::Output output{&out[k], &err[k], false};
      code[k] = tools::RunDump(o, output);
    }
    EXPECT_EQ(out[0].text(), out[1].text()) << what << ", variant " << variant;
    EXPECT_EQ(err[0].text(), err[1].text()) << what << ", variant " << variant;
    EXPECT_EQ(code[0], code[1]) << what << ", variant " << variant;
  }
}

TEST(DumpCli, StatsOfOneNodeInPartsReportWhatOneReaderReports) {
  TempDir dir;
  const std::string clean = NodeWal(dir.path() + "/clean", 7);
  ASSERT_EQ(wal::ListSegments(clean)->size(), 7u);
  ExpectPartsReadAsOne(clean, "clean");
  // Each segment in turn missing, cut short, damaged inside, or replaced by another
  // node's: wherever the parts are cut, the boundary changes nothing.
  const std::string other = NodeWal(dir.path() + "/other", 7, 2);
  for (int k = 0; k < 7; ++k) {
    const std::string name = fmt::format("{:016}.wal", k);
    for (int damage = 0; damage < 4; ++damage) {
      const std::string copy = dir.path() + fmt::format("/copy-{}-{}", k, damage);
      fs::copy(clean, copy, fs::copy_options::recursive);
      const std::string victim = copy + "/" + name;
      if (damage == 0) fs::remove(victim);
      if (damage == 1) fs::resize_file(victim, fs::file_size(victim) / 2);
      if (damage == 2) FlipByte(victim, static_cast<std::streamoff>(fs::file_size(victim) / 2));
      if (damage == 3) fs::copy_file(other + "/" + name, victim, fs::copy_options::overwrite_existing);
      ExpectPartsReadAsOne(copy, fmt::format("segment {}, damage {}", k, damage));
    }
  }
}

TEST(DumpCli, IgniteNodeInPartsReportsWhatOneReaderReports) {
  // A real Ignite node (archive with raw and .wal.zip files, work files), sound and with
  // its last archived raw segment damaged; binary objects named from its metadata.
  TempDir dir;
  const std::string work = dir.path() + "/work";
  fs::copy(std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/clean/nodes/server-0/work", work,
           fs::copy_options::recursive);
  ExpectPartsReadAsOne(work, "ignite");
  FlipByte(work + "/db/wal/archive/server_0/0000000000000001.wal", 2000);
  ExpectPartsReadAsOne(work, "ignite, damaged");
}

// --stats=node|partition|cache: each row is what the records themselves hold, counted
// here from the JSON dump; the totals are the plain table's.
TEST(DumpCli, StatsByNodePartitionAndCacheCountWhatTheRecordsHold) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--txs", "800", "--rollback-rate", "0.2", "--partitions", "8", "--crash",
                    "node-1@600", "--seed", "4"})
                .code,
            0);
  std::map<std::string, uint64_t> records;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> entries, rollbacks;  // (cache, partition)
  auto all = RunCli({"dump", "--json", c});
  ASSERT_EQ(all.code, 0) << all.err;
  for (size_t p = 0, q; (q = all.out.find('\n', p)) != std::string::npos; p = q + 1) {
    const auto r = nlohmann::json::parse(all.out.substr(p, q - p));
    ++records[r["node"]];
    if (r["type"] == "DATA_RECORD_V2") {
      for (const auto& e : r["entries"]) ++entries[{e["cache"].get<uint64_t>(), e["partition"].get<uint64_t>()}];
    }
    if (r["type"] == "ROLLBACK_TX_RECORD") ++rollbacks[{r["cache"].get<uint64_t>(), r["partition"].get<uint64_t>()}];
  }
  ASSERT_FALSE(rollbacks.empty());
  auto by_node = nlohmann::json::parse(RunCli({"dump", "--stats=node", "--json", c}).out);
  EXPECT_EQ(by_node["by"], "node");
  ASSERT_EQ(by_node["rows"].size(), records.size());
  for (const auto& row : by_node["rows"]) EXPECT_EQ(row["count"].get<uint64_t>(), records[row["node"]]) << row;
  const auto plain = nlohmann::json::parse(RunCli({"dump", "--stats", "--json", c}).out);
  EXPECT_EQ(by_node["records"], plain["records"]);
  EXPECT_EQ(by_node["bytes"], plain["bytes"]);
  auto by_part = nlohmann::json::parse(RunCli({"dump", "--stats=partition", "--json", c}).out);
  std::set<std::pair<uint64_t, uint64_t>> keys;
  for (const auto& [k, n] : entries) keys.insert(k);
  for (const auto& [k, n] : rollbacks) keys.insert(k);
  ASSERT_EQ(by_part["rows"].size(), keys.size());
  uint64_t total = 0;
  for (const auto& row : by_part["rows"]) {
    const std::pair<uint64_t, uint64_t> k{row["cache"].get<uint64_t>(), row["partition"].get<uint64_t>()};
    EXPECT_EQ(row["entries"].get<uint64_t>(), entries[k]) << row;
    EXPECT_EQ(row["rollbacks"].get<uint64_t>(), rollbacks[k]) << row;
    total += row["entries"].get<uint64_t>();
  }
  EXPECT_EQ(by_part["entries"].get<uint64_t>(), total);
  EXPECT_EQ(by_part["partitions"].get<uint64_t>(), keys.size());  // the text's Total row
  auto by_cache = nlohmann::json::parse(RunCli({"dump", "--stats=cache", "--json", c}).out);
  ASSERT_EQ(by_cache["rows"].size(), 1u);
  EXPECT_EQ(by_cache["rows"][0]["entries"].get<uint64_t>(), total);
  EXPECT_EQ(by_cache["rows"][0]["partitions"].get<uint64_t>(), keys.size());
  // Filters apply first: one partition's row only.
  auto one = nlohmann::json::parse(RunCli({"dump", "--stats=partition", "--json", "--partition", "3", c}).out);
  ASSERT_EQ(one["rows"].size(), 1u);
  EXPECT_EQ(one["rows"][0]["entries"].get<uint64_t>(), (entries[{1, 3}]));
  EXPECT_EQ(RunCli({"dump", "--stats=shard", c}).code, 2);
}

TEST(DumpCli, TornTailIsReportedButExitsZero) {
  TempDir dir;
  std::string tiny = Copy(dir);
  auto files = wal::ListSegments(tiny + "/node-0/wal");
  const auto& last = files->back().path;
  fs::resize_file(last, fs::file_size(last) - 5);
  auto r = RunCli({"dump", tiny + "/node-0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("torn tail"), std::string::npos);
  EXPECT_NE(r.err.find("warning"), std::string::npos);
}

TEST(DumpCli, LimitCountsAfterFilters) {
  auto r = RunCli({"dump", "--type", "tx", "--limit", "5", std::string(WALCUT_SOURCE_DIR) + "/testdata/tiny/node-0"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(Lines(r.out), 5u);
  EXPECT_EQ(r.out.find("DATA_RECORD"), std::string::npos);
}

TEST(DumpCli, FromAndToSelectARange) {
  std::string node = std::string(WALCUT_SOURCE_DIR) + "/testdata/tiny/node-0";
  auto all = RunCli({"dump", node});
  auto some = RunCli({"dump", "--from", "0:55", "--to", "1:0", node});
  EXPECT_EQ(some.code, 0);
  EXPECT_EQ(some.out.find(" 0:0 "), std::string::npos);
  EXPECT_EQ(some.out.find(" 1:"), std::string::npos);
  EXPECT_NE(some.out.find(" 0:55 "), std::string::npos);
  EXPECT_LT(Lines(some.out), Lines(all.out));
}

TEST(DumpCli, CutFilterTakesAPrefix) {
  auto r = RunCli({"dump", "--cut", "5eed5eed", std::string(WALCUT_SOURCE_DIR) + "/testdata/tiny/node-0"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(Lines(r.out), 2u);
}

TEST(DumpCli, QuietPrintsNothingOnCleanInput) {
  auto r = RunCli({"dump", "-q", std::string(WALCUT_SOURCE_DIR) + "/testdata/tiny"});
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(r.err.empty());
}

TEST(DumpCli, NoVerifyReadsRecordsWithBadChecksums) {
  TempDir dir;
  std::string tiny = Copy(dir);
  auto first = RunCli({"dump", "--json", "--type", "data", "--limit", "1", tiny + "/node-0"});
  auto doc = first.out;
  auto num = [&](const std::string& key) {
    size_t p = doc.find("\"" + key + "\":") + key.size() + 3;
    return std::stoul(doc.substr(p));
  };
  const size_t offset = num("offset"), size = num("size");
  std::string seg = tiny + "/node-0/wal/0000000000000000.wal";
  std::string bytes = testing_support::ReadFile(seg);
  bytes[offset + size - 9] ^= 0x01;  // last byte of the last value: still decodes
  std::ofstream(seg, std::ios::binary | std::ios::trunc) << bytes;
  auto checked = RunCli({"dump", "-q", tiny + "/node-0"});
  EXPECT_EQ(checked.code, 1);
  EXPECT_NE(checked.err.find("checksum mismatch"), std::string::npos);
  auto unchecked = RunCli({"dump", "--no-verify", "--type", "data", "--limit", "1", tiny + "/node-0"});
  EXPECT_EQ(unchecked.code, 0) << unchecked.err;
  EXPECT_EQ(Lines(unchecked.out), 1u);
}

// The real binary, its output read as it comes: the second record is written only once the
// follower has printed the first (it has read to the end of the WAL), so what it prints
// next can only come from following, whatever the machine's speed.
TEST(DumpCli, FollowSeesRecordsAppendedLater) {
  TempDir dir;
  auto w = wal::WalWriter::Create(dir.path() + "/node-9/wal", wal::Uuid{1, 2}, 1, {});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(wal::CutStartRecord{wal::Uuid{3, 4}, 1, 10}).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  std::vector<std::string> args = {WALCUT_BINARY,   "dump", "--follow", "--follow-interval", "0.02",
                                   "--follow-idle", "1.5",  "--type",   "cut-start",         dir.path() + "/node-9"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, WALCUT_BINARY, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  // On any way out (a failed assertion too): the pipe closed, the follower stopped and reaped.
  struct Reaper {
    int fd;
    pid_t pid;
    ~Reaper() {
      if (fd >= 0) close(fd);
      if (pid > 0) {
        int st = 0;
        if (waitpid(pid, &st, WNOHANG) == 0) {
          kill(pid, SIGTERM);
          waitpid(pid, &st, 0);
        }
      }
    }
  } reaper{out[0], spawned == 0 ? pid : 0};
  ASSERT_EQ(spawned, 0);
  std::string printed;
  auto read_line = [&] {  // up to and with the next newline, or false at the end
    char c = 0;
    for (;;) {
      const ssize_t n = read(out[0], &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      printed.push_back(c);
      if (c == '\n') return true;
    }
  };
  ASSERT_TRUE(read_line()) << printed;
  EXPECT_NE(printed.find(wal::Uuid{3, 4}.ToString()), std::string::npos) << printed;
  ASSERT_TRUE((*w)->Append(wal::CutStartRecord{wal::Uuid{5, 6}, 1, 20}).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  while (read_line()) {
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  reaper.pid = 0;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Lines(printed), 2u) << printed;
  EXPECT_NE(printed.find(wal::Uuid{5, 6}.ToString()), std::string::npos) << printed;
}

}  // namespace
