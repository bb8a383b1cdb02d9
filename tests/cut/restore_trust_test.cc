// What restore and verify may not get wrong: deletes are versioned writes, records out of
// a transaction's order are never applied or dropped without a word, a restore never
// keeps output that verify would reject, damage outside the range replayed does not
// matter, and verify expects every copy the assignment names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libwal/lz4_codec.h"
#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "recovery/partition_file.h"
#include "sim/simulate.h"
#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

// One node's WAL as the test needs it: each record's place, type and the writes and
// commits it holds.
struct Rec {
  wal::Pointer ptr;
  uint8_t type = 0;
  wal::TxId xid;  // TX_RECORD: its transaction
  wal::TxState state = wal::TxState::kPrepared;
  struct Write {
    wal::TxId xid;
    std::string key;
    uint64_t counter = 0;
    wal::EntryOp op = wal::EntryOp::kUpdate;
  };
  std::vector<Write> writes;  // DATA_RECORD_V2
  wal::Uuid cut;              // Start or Finish
};

std::vector<Rec> ReadRecs(const std::string& wal_dir) {
  std::vector<Rec> out;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, nullptr);
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    Rec x;
    x.ptr = r->ptr;
    x.type = r->type;
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kTx:
        x.xid = a.tx.xid;
        x.state = a.tx.state;
        break;
      case wal::RecordType::kData:
        for (const auto& e : a.data.entries) x.writes.push_back({e.xid, std::string(e.key), e.counter, e.op});
        break;
      case wal::RecordType::kCutStart: x.cut = a.cut_start.cut_id; break;
      case wal::RecordType::kCutFinish: x.cut = a.cut_finish.cut_id; break;
      default: break;
    }
    out.push_back(std::move(x));
  }
  return out;
}

class RestoreTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = dir_.path() + "/c";
    sim::SimConfig cfg;
    cfg.out_dir = c_;
    cfg.nodes = 3;
    cfg.backups = 1;
    cfg.accounts = 200;
    cfg.txs = 6000;
    cfg.cuts = 3;
    cfg.seed = 9;
    cfg.close_rate = 0.05;
    cfg.segment_size = 64 << 10;
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    ASSERT_EQ(RunCli({"check", "-q", c_}).code, 0);
    auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c_}).out)["cuts"];
    latest_ = cuts.back()["id"].get<std::string>();
    ASSERT_EQ(cuts.back()["status"], "consistent");
  }
  std::string Wal(int n) const { return fmt::format("{}/node-{}/wal", c_, n); }
  // Index of the latest cut's Start record among `recs`.
  static size_t StartOf(const std::vector<Rec>& recs, const std::string& cut) {
    for (size_t i = 0; i < recs.size(); ++i) {
      if (recs[i].type == static_cast<uint8_t>(wal::RecordType::kCutStart) && recs[i].cut.ToString() == cut) return i;
    }
    return recs.size();
  }
  // The index of the COMMITTED record of `x` after `from`.
  static size_t CommitOf(const std::vector<Rec>& recs, const wal::TxId& x, size_t from) {
    for (size_t i = from; i < recs.size(); ++i) {
      if (recs[i].type == static_cast<uint8_t>(wal::RecordType::kTx) && recs[i].xid == x &&
          recs[i].state == wal::TxState::kCommitted) {
        return i;
      }
    }
    return recs.size();
  }

  TempDir dir_;
  std::string c_, latest_;
};

// On one node, the last two writes of a key before the latest cut's Start, by two
// transactions A (earlier) and B, each committed in its own record right after its
// DATA record: the record indexes of A's data and commit and B's data and commit.
struct Pair {
  int node = -1;
  std::string key;
  size_t a_data = 0, a_commit = 0, b_data = 0, b_commit = 0;
  Rec::Write a, b;
};

std::optional<Pair> LastTwoWrites(const std::vector<std::vector<Rec>>& wals, const std::string& cut, bool b_deletes) {
  for (int n = 0; n < static_cast<int>(wals.size()); ++n) {
    const auto& recs = wals[static_cast<size_t>(n)];
    const size_t start = [&] {
      for (size_t i = 0; i < recs.size(); ++i) {
        if (recs[i].type == static_cast<uint8_t>(wal::RecordType::kCutStart) && recs[i].cut.ToString() == cut) return i;
      }
      return recs.size();
    }();
    // key -> (data index, write) of its writes before Start, in order.
    std::map<std::string, std::vector<std::pair<size_t, Rec::Write>>> by_key;
    for (size_t i = 0; i < start; ++i) {
      for (const auto& w : recs[i].writes) {
        if (!w.xid.IsNull()) by_key[w.key].push_back({i, w});
      }
    }
    for (const auto& [key, ws] : by_key) {
      if (ws.size() < 2) continue;
      const auto& [bi, b] = ws.back();
      const auto& [ai, a] = ws[ws.size() - 2];
      if (b_deletes != (b.op == wal::EntryOp::kDelete) || a.xid == b.xid) continue;
      // Each DATA record followed at once by its own commit: one role each.
      auto commit_right_after = [&](size_t i, const wal::TxId& x) {
        return i + 1 < start && recs[i + 1].type == static_cast<uint8_t>(wal::RecordType::kTx) &&
               recs[i + 1].xid == x && recs[i + 1].state == wal::TxState::kCommitted;
      };
      if (!commit_right_after(ai, a.xid) || !commit_right_after(bi, b.xid) || ai + 1 >= bi) continue;
      return Pair{n, key, ai, ai + 1, bi, bi + 1, a, b};
    }
  }
  return std::nullopt;
}

TEST_F(RestoreTrust, ADeleteIsNotUndoneByAnOlderWriteReplayedAfterIt) {
  std::vector<std::vector<Rec>> wals;
  for (int n = 0; n < 3; ++n) wals.push_back(ReadRecs(Wal(n)));
  auto p = LastTwoWrites(wals, latest_, true);
  ASSERT_TRUE(p.has_value()) << "no key deleted last before the latest cut";
  // The node logs B (the delete) before A, as a backup may receive them in either order.
  size_t index = 0;
  std::vector<wal::AnyRecord> held;
  // The rewriter passes no header or switch record: map its indexes to ReadRecs'.
  std::vector<size_t> kept;
  for (size_t i = 0; i < wals[static_cast<size_t>(p->node)].size(); ++i) {
    const uint8_t t = wals[static_cast<size_t>(p->node)][i].type;
    if (t != static_cast<uint8_t>(wal::RecordType::kHeader) &&
        t != static_cast<uint8_t>(wal::RecordType::kSwitchSegment)) {
      kept.push_back(i);
    }
  }
  ASSERT_TRUE(testing_support::RewriteWalRecords(Wal(p->node), [&](const wal::AnyRecord& a) {
    const size_t i = kept[index++];
    if (i == p->a_data || i == p->a_commit) {
      held.push_back(a);
      return std::vector<wal::AnyRecord>{};
    }
    if (i == p->b_commit) {
      std::vector<wal::AnyRecord> out{a};
      out.insert(out.end(), held.begin(), held.end());
      return out;
    }
    return std::vector<wal::AnyRecord>{a};
  }));
  ASSERT_EQ(held.size(), 2u);
  ASSERT_EQ(RunCli({"check", "-q", c_}).code, 0) << RunCli({"check", c_}).out;
  const std::string out = dir_.path() + "/r";
  auto r = RunCli({"restore", c_, "--cut", latest_, "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RunCli({"verify", "-q", out}).code, 0);
  // The key stays deleted on that node.
  for (const auto& e : fs::directory_iterator(fmt::format("{}/node-{}/data", out, p->node))) {
    auto pf = recovery::ReadPartitionFile(e.path().string());
    ASSERT_TRUE(pf.ok());
    for (const auto& en : pf->entries) EXPECT_NE(en.key, p->key) << "the deleted key came back";
  }
}

TEST_F(RestoreTrust, CopiesThatDisagreeAreRefusedUnlessForced) {
  std::vector<std::vector<Rec>> wals;
  for (int n = 0; n < 3; ++n) wals.push_back(ReadRecs(Wal(n)));
  auto p = LastTwoWrites(wals, latest_, false);
  ASSERT_TRUE(p.has_value());
  // Swap the two writes' counters on that node only: both Before, so the cut's rules
  // hold, but its copy now keeps the older value.
  ASSERT_TRUE(testing_support::RewriteWal(Wal(p->node), [&](wal::AnyRecord& a) {
    if (a.type != static_cast<uint8_t>(wal::RecordType::kData)) return 1;
    for (auto& e : a.data.entries) {
      if (e.key != p->key) continue;
      if (e.xid == p->a.xid)
        e.counter = p->b.counter;
      else if (e.xid == p->b.xid)
        e.counter = p->a.counter;
    }
    return 1;
  }));
  ASSERT_EQ(RunCli({"check", "-q", c_}).code, 0) << RunCli({"check", c_}).out;
  const std::string out = dir_.path() + "/r";
  auto r = RunCli({"restore", c_, "--cut", latest_, "-o", out});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("do not agree"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("content"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".partial"));
  // Kept with --force, and marked so: verify still fails.
  auto forced = RunCli({"restore", c_, "--cut", latest_, "-o", out, "--force"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  auto m = nlohmann::json::parse(testing_support::ReadFile(out + "/restore.json"));
  EXPECT_TRUE(m["forced"].get<bool>());
  EXPECT_FALSE(m["conflicts"].empty());
  auto v = nlohmann::json::parse(RunCli({"verify", "--json", out}).out);
  EXPECT_FALSE(v["ok"].get<bool>());
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;  // the hint, for a disagreement only
}

// A base partition file is read once, by the restore that loads it: a damaged one fails
// that node's restore, names the file, leaves nothing, and does not suggest --force; a
// dry run reads and checks every base file itself.
TEST_F(RestoreTrust, ADamagedBaseFileFailsTheRestoreAndTheDryRun) {
  std::string victim;
  for (const auto& e : fs::directory_iterator(c_ + "/node-1/snapshots/base")) {
    if (e.path().extension() == ".dat") victim = e.path().string();
  }
  ASSERT_FALSE(victim.empty());
  std::string bytes = testing_support::ReadFile(victim);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x20);
  std::ofstream(victim, std::ios::binary | std::ios::trunc) << bytes;
  const std::string out = dir_.path() + "/r";
  auto r = RunCli({"restore", c_, "--cut", latest_, "-o", out});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("restore of node-1 failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(fs::path(victim).filename().string()), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".partial"));
  auto dry = RunCli({"restore", c_, "--cut", latest_, "--dry-run"});
  EXPECT_EQ(dry.code, 1) << dry.err;
  EXPECT_NE(dry.err.find(fs::path(victim).filename().string()), std::string::npos) << dry.err;
}

TEST_F(RestoreTrust, DataRecordsAfterTheirCommitAreDamageNotDropped) {
  auto recs = ReadRecs(Wal(0));
  const size_t start = StartOf(recs, latest_);
  // A DATA record of a transaction followed at once by its commit, before the Start.
  size_t data = recs.size();
  for (size_t i = 0; i + 1 < start; ++i) {
    if (recs[i].type == static_cast<uint8_t>(wal::RecordType::kData) && !recs[i].writes.empty() &&
        CommitOf(recs, recs[i].writes[0].xid, i + 1) == i + 1) {
      data = i;
    }
  }
  ASSERT_LT(data, recs.size());
  size_t index = 0;
  std::vector<size_t> kept;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].type != static_cast<uint8_t>(wal::RecordType::kHeader) &&
        recs[i].type != static_cast<uint8_t>(wal::RecordType::kSwitchSegment)) {
      kept.push_back(i);
    }
  }
  wal::AnyRecord held;
  ASSERT_TRUE(testing_support::RewriteWalRecords(Wal(0), [&](const wal::AnyRecord& a) {
    const size_t i = kept[index++];
    if (i == data) {
      held = a;
      return std::vector<wal::AnyRecord>{};
    }
    if (i == data + 1) return std::vector<wal::AnyRecord>{a, held};  // the commit, then the data
    return std::vector<wal::AnyRecord>{a};
  }));
  auto check = RunCli({"check", c_});
  EXPECT_EQ(check.code, 1) << check.out;
  EXPECT_NE(check.err.find("records out of order"), std::string::npos) << check.err;
  auto r = RunCli({"restore", c_, "--cut", latest_, "-o", dir_.path() + "/r"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("out of order"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_.path() + "/r"));
  EXPECT_EQ(RunCli({"txs", "-q", c_}).code, 1);
}

// Restoring a cut needs its proof, so its window (to the next cut's Start) on every node,
// and the range it replays (from the base snapshot to its Finish record): damage past
// both does not matter.
TEST_F(RestoreTrust, DamagePastTheCutsWindowAndRangeDoesNotMatter) {
  auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c_}).out)["cuts"];
  const std::string first = cuts[0]["id"].get<std::string>();
  wal::Pointer next_start;
  for (const auto& n : cuts[1]["nodes"]) {
    if (n["node"] == "node-1") next_start = *wal::Pointer::Parse(n["start"].get<std::string>());
  }
  auto files = wal::ListSegments(Wal(1));
  const uint64_t gone = next_start.segment + 1;
  ASSERT_GT(files->back().index, gone) << "the WAL needs segments after the second cut's Start";
  fs::remove(fmt::format("{}/{}", Wal(1), wal::SegmentFileName(gone, false)));
  auto check = RunCli({"check", "--json", c_});
  EXPECT_EQ(check.code, 1);  // the WAL is damaged
  auto j = nlohmann::json::parse(check.out);
  EXPECT_EQ(j["cuts"][0]["status"], "consistent");
  auto r = RunCli({"restore", c_, "--cut", first, "-o", dir_.path() + "/r1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RunCli({"verify", "-q", dir_.path() + "/r1"}).code, 0);
  // The latest cut's range holds the damage: refused, naming it.
  auto latest = RunCli({"restore", c_, "--cut", latest_, "-o", dir_.path() + "/r2"});
  EXPECT_EQ(latest.code, 1);
  EXPECT_NE(latest.err.find(fmt::format("segment {} is missing", gone)), std::string::npos) << latest.err;
}

TEST_F(RestoreTrust, ASegmentStoredTwiceWithTheSameBytesIsReadOnce) {
  auto files = wal::ListSegments(Wal(1));
  ASSERT_GE(files->size(), 2u);
  const auto& sealed = (*files)[0];
  auto packed = wal::CompressLz4Frame(testing_support::ReadFile(sealed.path));
  ASSERT_TRUE(packed.ok());
  std::ofstream(sealed.path + ".lz4", std::ios::binary) << *packed;
  auto check = RunCli({"check", c_});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  auto r = RunCli({"restore", c_, "--latest", "-o", dir_.path() + "/r"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto dump = RunCli({"dump", "--stats", Wal(1)});
  EXPECT_EQ(dump.code, 0);
  EXPECT_NE(dump.err.find("redundant copy"), std::string::npos) << dump.err;
}

TEST_F(RestoreTrust, VerifyExpectsEveryCopyOfTheAssignment) {
  const std::string out = dir_.path() + "/r";
  ASSERT_EQ(RunCli({"restore", c_, "--latest", "-o", out}).code, 0);
  fs::remove_all(out + "/node-1/data");
  auto v = nlohmann::json::parse(RunCli({"verify", "--json", out}).out);
  EXPECT_FALSE(v["ok"].get<bool>());
  size_t missing = 0;
  for (const auto& k : v["conflicts"]) missing += k["kind"] == "missing-copy" && k["nodes"][0] == "node-1";
  EXPECT_GT(missing, 0u) << v.dump(1);
  // A restore of one node is verified as such.
  const std::string one = dir_.path() + "/one";
  ASSERT_EQ(RunCli({"restore", c_, "--latest", "-o", one, "--node", "node-0"}).code, 0);
  EXPECT_EQ(RunCli({"verify", "-q", one}).code, 0);
  // A copy where the assignment puts none.
  ASSERT_EQ(RunCli({"verify", "-q", c_}).code, 0);
  std::string file, target;
  for (const auto& e : fs::directory_iterator(c_ + "/node-0/data")) {
    const std::string name = e.path().filename().string();
    if (!fs::exists(c_ + "/node-1/data/" + name)) {
      file = e.path().string();
      target = c_ + "/node-1/data/" + name;
      break;
    }
  }
  ASSERT_FALSE(file.empty());
  fs::copy_file(file, target);
  auto vc = nlohmann::json::parse(RunCli({"verify", "--json", c_}).out);
  bool unexpected = false;
  for (const auto& k : vc["conflicts"]) unexpected |= k["kind"] == "unexpected-copy" && k["nodes"][0] == "node-1";
  EXPECT_TRUE(unexpected) << vc.dump(1);
}

TEST_F(RestoreTrust, SideFilesCarryTheirOwnChecksum) {
  const std::string out = dir_.path() + "/r";
  ASSERT_EQ(RunCli({"restore", c_, "--latest", "-o", out}).code, 0);
  std::string m = testing_support::ReadFile(out + "/restore.json");
  const size_t at = m.find("\"txs_applied\": ");
  ASSERT_NE(at, std::string::npos);
  m[at + 15] = m[at + 15] == '9' ? '8' : '9';  // one digit of a count
  std::ofstream(out + "/restore.json", std::ios::binary | std::ios::trunc) << m;
  auto v = RunCli({"verify", out});
  EXPECT_EQ(v.code, 3) << v.out << v.err;
  EXPECT_NE(v.err.find("checksum mismatch"), std::string::npos) << v.err;
  // A snapshot.json edited: restore refuses it.
  const std::string snap = c_ + "/node-2/snapshots/base/snapshot.json";
  std::string s = testing_support::ReadFile(snap);
  const size_t ts = s.find("\"timestamp\": ");
  ASSERT_NE(ts, std::string::npos);
  s.insert(ts + 13, "1");
  std::ofstream(snap, std::ios::binary | std::ios::trunc) << s;
  auto r = RunCli({"restore", c_, "--latest", "-o", dir_.path() + "/r2"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("snapshot.json"), std::string::npos) << r.err;
}

TEST_F(RestoreTrust, AnEmptyDirectoryIsRestoredIntoInPlaceAndAnUnfinishedOneIsRefusedByVerify) {
  const std::string out = dir_.path() + "/mnt";
  fs::create_directories(out);
  auto r = RunCli({"restore", c_, "--latest", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out + "/.walcut-incomplete"));
  EXPECT_EQ(RunCli({"verify", "-q", out}).code, 0);
  // An unfinished restore (its marker left by a crash) is not taken for a result, and a
  // rerun into it finishes it.
  const std::string half = dir_.path() + "/half";
  fs::create_directories(half + "/node-0/data");
  std::ofstream(half + "/.walcut-incomplete") << "x";
  fs::copy_file(out + "/cluster.json", half + "/cluster.json");
  EXPECT_EQ(RunCli({"verify", "-q", half}).code, 3);
  EXPECT_EQ(RunCli({"restore", c_, "--latest", "-o", half}).code, 0);
  EXPECT_EQ(RunCli({"verify", "-q", half}).code, 0);
  // An OUT.partial that is not walcut's is left alone.
  fs::create_directories(dir_.path() + "/mine.partial");
  std::ofstream(dir_.path() + "/mine.partial/keep") << "x";
  EXPECT_EQ(RunCli({"restore", c_, "--latest", "-o", dir_.path() + "/mine"}).code, 2);
  EXPECT_TRUE(fs::exists(dir_.path() + "/mine.partial/keep"));
}

// A transaction whose records are lost on one participant well before a cut, while the
// others committed it: a restore would leave copies that disagree, so check reports it,
// with its kind and transaction, at the first cut after the loss and at every later cut
// of the same base, and restore refuses each of them as check does.
TEST_F(RestoreTrust, ATransactionLostOnOneParticipantFailsTheCheckAsItFailsTheRestore) {
  std::vector<std::vector<Rec>> wals;
  for (int n = 0; n < 3; ++n) wals.push_back(ReadRecs(Wal(n)));
  auto cuts = nlohmann::json::parse(RunCli({"cuts", "--json", c_}).out)["cuts"];
  ASSERT_GE(cuts.size(), 2u);
  const std::string first = cuts[0]["id"].get<std::string>();
  ASSERT_EQ(cuts[0]["status"], "consistent");
  // The last writer of a key before the first cut's Start, dropped on one node: the key's
  // other copy keeps its write.
  auto p = LastTwoWrites(wals, first, false);
  ASSERT_TRUE(p.has_value());
  const wal::TxId lost = p->b.xid;
  const std::string victim = fmt::format("node-{}", p->node);
  ASSERT_TRUE(testing_support::RewriteWal(Wal(p->node), [&](wal::AnyRecord& a) {
    if (a.type == static_cast<uint8_t>(wal::RecordType::kTx)) return a.tx.xid == lost ? 0 : 1;
    if (a.type != static_cast<uint8_t>(wal::RecordType::kData)) return 1;
    auto& es = a.data.entries;
    es.erase(std::remove_if(es.begin(), es.end(), [&](const wal::DataEntry& e) { return e.xid == lost; }), es.end());
    return es.empty() ? 0 : 1;
  }));
  auto check = RunCli({"check", "--json", c_});
  EXPECT_EQ(check.code, 1) << check.out;
  auto j = nlohmann::json::parse(check.out);
  for (const auto& c : j["cuts"]) {
    bool reported = false;
    for (const auto& v : c["violations"]) {
      if (v["kind"] == "before-missing-on-participant" && v["tx"] == lost.ToString()) {
        reported = true;
        EXPECT_EQ(v["nodes"][1], victim) << v.dump();
      }
    }
    EXPECT_TRUE(reported) << "cut " << c["id"] << ": " << c.dump(1).substr(0, 2000);
    EXPECT_NE(c["status"], "consistent");
    const std::string out = dir_.path() + "/r-" + c["id"].get<std::string>();
    auto r = RunCli({"restore", c_, "--cut", c["id"].get<std::string>(), "-o", out});
    EXPECT_NE(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
