// A transaction torn by a cut's Start record on Apache Ignite's WAL: the late-commit
// fixture (testdata/ignite/late-commit) with server_0's segment 2 rewritten so that the
// Start record of increment 3 falls between the transaction's two DATA_RECORD_V2 records.
// Listed in neither set of the Finish record, its first entry is replayed by Ignite's
// restore and its second is not; check names it torn-transaction on that node, and the
// increment is not restored. Then WALs written from scripts (tests/support/ignite_script.h):
// what is torn and what is not, and a summary resumed between the entries and the commit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "libwal/ignite_frame.h"
#include "tests/support/ignite_script.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

const std::string kFixture = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/late-commit/nodes";
const std::string kLateFixture = "407977220.2.1796497217614";
const std::string kLateIncrement3 = "10357a8c";
constexpr size_t kHeader = 29;
// server_0's segment 2: the transaction's two DATA_RECORD_V2 records (a page record
// between them), then increment 3's Start record.
constexpr uint32_t kFirstEntry = 26518, kSecondEntry = 26730, kStart = 26854;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Frame {
  uint32_t offset = 0;
  uint8_t type = 0;
  std::string raw, payload;
};

// The frames of an Ignite segment file after its header, up to the end of its data.
std::vector<Frame> Frames(const std::string& bytes, uint64_t segment) {
  std::vector<Frame> out;
  for (size_t at = kHeader; at < bytes.size() && bytes[at] != 0;) {
    wal::FrameView v;
    const auto status = wal::ParseIgniteFrame(bytes.data() + at, bytes.size() - at,
                                              wal::Pointer{segment, static_cast<uint32_t>(at)}, false, true, &v);
    EXPECT_EQ(status, wal::FrameStatus::kOk) << "at " << at;
    if (status != wal::FrameStatus::kOk || v.size == 0) break;
    out.push_back({static_cast<uint32_t>(at), v.type, bytes.substr(at, v.size), std::string(v.payload)});
    at += v.size;
  }
  return out;
}

// The segment with its frames in the order given, each framed again at its new offset
// (a SWITCH byte as it was); the header and what follows the data are kept.
std::string Reframed(const std::string& bytes, uint64_t segment, const std::vector<Frame>& frames) {
  std::string out = bytes.substr(0, kHeader);
  for (const Frame& f : frames) {
    out += f.raw.size() == 1
               ? f.raw
               : wal::IgniteFrame(f.type, wal::Pointer{segment, static_cast<uint32_t>(out.size())}, f.payload);
  }
  return out + bytes.substr(out.size());
}

// A copy of the fixture with increment 3's Start record on server_0 moved from after the
// transaction's second entry to before it.
std::string TornCopy(const std::string& dir) {
  fs::copy(kFixture, dir, fs::copy_options::recursive);
  const std::string archive = dir + "/server-0/work/db/wal/archive/server_0/";
  const std::string bytes = Slurp(archive + "0000000000000002.wal");
  std::vector<Frame> frames = Frames(bytes, 2);
  EXPECT_EQ(Reframed(bytes, 2, frames), bytes) << "framed again in place, the segment is unchanged";
  auto at = [&](uint32_t offset) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (frames[i].offset == offset) return i;
    }
    ADD_FAILURE() << "no frame at " << offset;
    return size_t{0};
  };
  const size_t first = at(kFirstEntry), second = at(kSecondEntry), start = at(kStart);
  EXPECT_LT(first, second);  // a page record between them
  EXPECT_EQ(start, second + 1);
  std::swap(frames[second], frames[start]);
  std::ofstream(archive + "0000000000000002.wal", std::ios::binary | std::ios::trunc) << Reframed(bytes, 2, frames);
  fs::remove(archive + "0000000000000002.wal.zip");  // the archive's other copy of segment 2
  return dir;
}

TEST(IgniteTornTransaction, CheckNamesItOnTheNodeAndTheIncrementIsNotConsistent) {
  TempDir tmp;
  const std::string nodes = TornCopy(tmp.path() + "/nodes");
  const auto r = RunCli({"check", "--json", nodes});
  EXPECT_NE(r.code, 0) << r.out << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& c : doc["cuts"]) {
    for (const auto& v : c["violations"]) {
      if (v["kind"] != "torn-transaction") continue;
      EXPECT_EQ(c["id"].get<std::string>().substr(0, 8), kLateIncrement3) << v.dump();
      EXPECT_NE(c["status"], "consistent");
      EXPECT_EQ(v["tx"], kLateFixture) << v.dump();
      EXPECT_EQ(v["nodes"], nlohmann::json::array({"server_0"})) << v.dump();
      found = true;
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(IgniteTornTransaction, TheFixtureAsIgniteWroteItHasNone) {
  const auto r = RunCli({"check", "--json", kFixture});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("torn-transaction"), std::string::npos) << r.out;
}

TEST(IgniteTornTransaction, RestoreOfTheIncrementIsRefused) {
  TempDir tmp;
  const std::string nodes = TornCopy(tmp.path() + "/nodes");
  const auto r = RunCli({"restore", "-q", "--increment", "3", nodes, "-o", tmp.path() + "/out"});
  EXPECT_NE(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("no consistent cut is increment 3"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/out"));
}

// The torn-transaction violations `check --json` reports on the WAL of `tokens`, as
// "tx@node" strings.
std::vector<std::string> TornOf(const std::vector<std::string>& tokens) {
  TempDir tmp;
  testing_support::WriteIgniteScript(tmp.path() + "/n", tokens);
  const auto r = RunCli({"check", "--json", tmp.path() + "/n"});
  std::vector<std::string> out;
  const auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
  if (doc.is_discarded()) return out;
  for (const auto& c : doc["cuts"]) {
    for (const auto& v : c["violations"]) {
      if (v["kind"] == "torn-transaction") out.push_back(v["tx"].get<std::string>());
    }
  }
  return out;
}

using Torn = std::vector<std::string>;

TEST(IgniteTornTransaction, EntriesOnBothSidesOfTheStartListedInNeitherSet) {
  EXPECT_EQ(TornOf({"P5", "D5", "S1", "D5", "C5", "F1"}), Torn{"1.1.5"});
  // The Finish record before the commit, or the commit after both records: the same.
  EXPECT_EQ(TornOf({"P5", "D5", "S1", "D5", "F1", "C5"}), Torn{"1.1.5"});
  // Interleaved with another transaction's entries, which it is not.
  EXPECT_EQ(TornOf({"P5", "D5", "P6", "D6", "S1", "D6", "D5", "C6", "C5", "F1b6"}), Torn{"1.1.5"});
  // Committed twice (two roles), both with entries across the Start: named once.
  EXPECT_EQ(TornOf({"P5", "P5", "D5", "S1", "D5", "C5", "D5", "C5", "F1"}), Torn{"1.1.5"});
}

TEST(IgniteTornTransaction, WholeOnOneSideOrListedIsNot) {
  EXPECT_EQ(TornOf({"P5", "D5", "S1", "D5", "C5", "F1b5"}), Torn{});  // listed Before: all replayed
  EXPECT_EQ(TornOf({"P5", "D5", "S1", "D5", "C5", "F1a5"}), Torn{});  // listed After: none
  EXPECT_EQ(TornOf({"P5", "D5", "D5", "S1", "C5", "F1"}), Torn{});    // all before the Start
  EXPECT_EQ(TornOf({"P5", "S1", "D5", "D5", "C5", "F1"}), Torn{});    // all after it
  EXPECT_EQ(TornOf({"P5", "D5", "S1", "D5", "R5", "F1"}), Torn{});    // rolled back
  // A second role with no entries of its own after the Start: its commit takes none
  // (side-split says what is wrong there).
  EXPECT_EQ(TornOf({"P5", "P5", "D5", "D5", "S1", "C5", "C5", "F1"}), Torn{});
  // The entries of a role that committed before the Start are not the next role's.
  EXPECT_EQ(TornOf({"P5", "D5", "C5", "P5", "S1", "D5", "C5", "F1"}), Torn{});
}

// The reading's state saved between the transaction's entries and its commit: the first
// entry's place comes back with it, and the summary written in two runs reports the same.
TEST(IgniteTornTransaction, ASummaryResumedBetweenTheEntriesAndTheCommitFindsIt) {
  TempDir tmp;
  const std::string nodes = tmp.path() + "/n", sum = tmp.path() + "/n.sum";
  const std::vector<std::string> part = {"P5", "D5", "S1", "D5", "|", "P6", "D6", "|"};
  std::vector<std::string> whole = part;
  for (const char* t : {"D6", "C6", "C5", "F1"}) whole.push_back(t);
  testing_support::WriteIgniteScript(nodes, part);
  auto r = RunCli({"cuts", nodes, "-q", "--summary", sum, "--append"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ASSERT_TRUE(fs::exists(sum + ".resume"));
  testing_support::WriteIgniteScript(nodes, whole);
  r = RunCli({"cuts", nodes, "-q", "--summary", sum, "--append"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("written whole"), std::string::npos) << r.err;
  const auto from_summary = RunCli({"check", "--summaries", sum});
  const auto from_wal = RunCli({"check", nodes});
  EXPECT_NE(from_summary.out.find("torn-transaction tx 1.1.5 "), std::string::npos)
      << from_summary.out << from_summary.err;
  EXPECT_EQ(from_summary.out, from_wal.out);
}

// Ignite's WAL names no node order: the summaries of two nodes (all order 0) are checked
// together, with check's verdict.
TEST(IgniteTornTransaction, SummariesOfTwoNodesWithoutOrdersGiveCheckVerdict) {
  TempDir tmp;
  const std::string a = tmp.path() + "/a", b = tmp.path() + "/b";
  testing_support::WriteIgniteScript(a, {"P5", "D5", "S1", "C5", "F1a5"}, "server_0");
  testing_support::WriteIgniteScript(b, {"P5", "D5", "C5", "S1", "F1b5"}, "server_1");
  for (const auto& [dir, sum] : {std::pair{a, a + ".sum"}, std::pair{b, b + ".sum"}}) {
    auto r = RunCli({"cuts", dir, "-q", "--summary", sum});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const auto from_summaries = RunCli({"check", "--summaries", a + ".sum", b + ".sum"});
  const auto from_wal = RunCli({"check", a, b});
  EXPECT_EQ(from_summaries.err.find("has order"), std::string::npos) << from_summaries.err;
  EXPECT_EQ(from_summaries.code, from_wal.code) << from_summaries.err;
  EXPECT_EQ(from_summaries.out, from_wal.out);
  EXPECT_NE(from_wal.out.find("side-mismatch"), std::string::npos) << from_wal.out;  // 1.1.5 After on a, Before on b
}

// A node's cut ids are unique in its index, whatever order its cut records come in
// (FindCut relies on it): records of a cut handed over, or of one already open, open no
// second cut of that id.
TEST(IgniteScriptedWal, CutRecordsOfAKnownCutOpenNoSecondCut) {
  for (const std::vector<std::string>& tokens :
       {std::vector<std::string>{"S1", "F1", "S2", "F2", "S1", "F1", "S3", "F3"},
        std::vector<std::string>{"F1", "S1", "F2", "S2", "F1", "S1"}}) {
    TempDir tmp;
    testing_support::WriteIgniteScript(tmp.path() + "/n", tokens);
    const auto r = RunCli({"check", "--json", tmp.path() + "/n"});
    const auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
    std::set<std::string> ids;
    for (const auto& c : doc["cuts"]) EXPECT_TRUE(ids.insert(c["id"].get<std::string>()).second) << r.out;
    EXPECT_FALSE(ids.empty());
    EXPECT_NE(r.code, 0);  // the stray records are violations
  }
}

}  // namespace
