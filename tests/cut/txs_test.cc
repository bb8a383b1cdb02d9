// walcut txs: the transaction table across nodes, and --in-doubt finding a transaction
// that one participant never committed; --in-doubt and --state pick the rows of the
// full table they describe, whatever the damage; the text table's sides are the rule's.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libcut/side.h"
#include "libwal/wal_reader.h"
#include "sim/simulate.h"
#include "tests/support/rewrite_wal.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;

// A simulated cluster of three servers, each partition with two backups, in `c`; with
// `unknown_rate`, that share of transactions ends UNKNOWN on one participant.
::testing::AssertionResult Simulate(const std::string& c, uint64_t txs, uint64_t seed, uint32_t cuts = 3,
                                    double unknown_rate = 0) {
  sim::SimConfig cfg;
  cfg.out_dir = c;
  cfg.txs = txs;
  cfg.seed = seed;
  cfg.cuts = cuts;
  cfg.backups = 2;
  cfg.unknown_rate = unknown_rate;
  if (sim::Simulate(cfg).ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "simulate into " << c;
}

TEST(Txs, ShowsEveryParticipantWithStateCommitAndSides) {
  testing_support::TempDir dir;
  std::string c = dir.path() + "/c";
  ASSERT_TRUE(Simulate(c, 800, 2));
  auto all = nlohmann::json::parse(RunCli({"txs", "--json", c}).out);
  ASSERT_GE(all["txs"].size(), 800u);
  for (const auto& t : all["txs"]) {
    EXPECT_FALSE(t["in_doubt"].get<bool>()) << t.dump();
    for (const auto& n : t["nodes"]) {
      EXPECT_EQ(n["state"], "COMMITTED") << t.dump();
      EXPECT_FALSE(n["commits"].empty());
      EXPECT_EQ(n["sides"].size(), 3u);  // three complete cuts
    }
  }
  EXPECT_EQ(RunCli({"txs", "--in-doubt", "-q", c}).code, 0);
  EXPECT_EQ(RunCli({"txs", "--tx", "9.9.9", c}).code, 1);
  EXPECT_EQ(RunCli({"txs", "--tx", "nope", c}).code, 2);
  // node-1 never logged one COMMITTED record: that transaction is in doubt.
  std::string victim;
  ASSERT_TRUE(testing_support::RewriteWal(c + "/node-1/wal", [&](wal::AnyRecord& a) {
    if (victim.empty() && a.type == static_cast<uint8_t>(wal::RecordType::kTx) &&
        a.tx.state == wal::TxState::kCommitted && a.tx.xid.order > 100) {
      victim = a.tx.xid.ToString();
      return 0;
    }
    return 1;
  }));
  auto doubt = nlohmann::json::parse(RunCli({"txs", "--json", "--in-doubt", c}).out);
  ASSERT_EQ(doubt["txs"].size(), 1u) << doubt.dump(1);
  EXPECT_EQ(doubt["txs"][0]["tx"], victim);
  bool prepared_on_1 = false;
  for (const auto& n : doubt["txs"][0]["nodes"]) prepared_on_1 |= n["node"] == "node-1" && n["state"] == "PREPARED";
  EXPECT_TRUE(prepared_on_1);
}

// A participant that ends a transaction UNKNOWN applied it (restore does, the cut index
// counts it as a commit): its row has the commit and the sides, the other nodes' sides.
TEST(Txs, AnUnknownRecordIsACommitOnTheSideOfTheOtherNodes) {
  testing_support::TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_TRUE(Simulate(c, 1500, 5, 3, 0.05));
  ASSERT_EQ(RunCli({"check", "-q", c}).code, 0);
  const auto all = nlohmann::json::parse(RunCli({"txs", "--json", c}).out);
  size_t unknown = 0;
  for (const auto& t : all["txs"]) {
    const nlohmann::json* sides = nullptr;
    for (const auto& n : t["nodes"]) {
      if (n["state"] == "UNKNOWN") {
        ++unknown;
        EXPECT_FALSE(n["commits"].empty()) << t.dump();
        EXPECT_FALSE(n["sides"].empty()) << t.dump();
      }
      if (n["sides"].empty()) continue;
      if (sides == nullptr) sides = &n["sides"];
      for (const auto& [cut, side] : n["sides"].items()) {  // each cut both nodes have
        if (sides->contains(cut)) {
          EXPECT_EQ(side, (*sides)[cut]) << cut << " " << t.dump();
        }
      }
    }
  }
  EXPECT_GT(unknown, 10u);
}

// --in-doubt and --state print exactly the full table's rows that pass them, judged on
// each node's state merged over all its records of a transaction. Three kinds of damage:
// a participant that never committed (PREPARED there), a named participant with no record
// at all ("missing"), and a node with two entries of one transaction (a ROLLED_BACK
// record long after its COMMITTED one, or before its PREPARED ones).
TEST(Txs, FiltersPrintTheFullTableRowsThatPassThem) {
  testing_support::TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_TRUE(Simulate(c, 800, 5));
  auto first_commit_after = [&](const std::string& node, uint64_t order, wal::TxId* x) {
    auto reader = wal::WalReader::OpenDirectory(fmt::format("{}/{}/wal", c, node), {}, nullptr);
    ASSERT_TRUE(reader.ok());
    const wal::Record* r = nullptr;
    while (x->IsNull() && (*reader)->Next(&r)) {
      const wal::AnyRecord& a = r->decoded;
      if (a.type == static_cast<uint8_t>(wal::RecordType::kTx) && a.tx.state == wal::TxState::kCommitted &&
          a.tx.xid.order > order) {
        *x = a.tx.xid;
      }
    }
    ASSERT_FALSE(x->IsNull());
  };
  // node-1 never logged one COMMITTED record.
  wal::TxId prepared;
  first_commit_after("node-1", 60, &prepared);
  ASSERT_TRUE(testing_support::RewriteWal(c + "/node-1/wal", [&](wal::AnyRecord& a) {
    return a.type == static_cast<uint8_t>(wal::RecordType::kTx) && a.tx.state == wal::TxState::kCommitted &&
                   a.tx.xid == prepared
               ? 0
               : 1;
  }));
  // node-2 has no record of one transaction it took part in.
  wal::TxId missing;
  first_commit_after("node-2", 120, &missing);
  ASSERT_TRUE(testing_support::RewriteWalRecords(c + "/node-2/wal", [&](const wal::AnyRecord& r) {
    wal::AnyRecord a = r;
    if (a.type == static_cast<uint8_t>(wal::RecordType::kTx) && a.tx.xid == missing) {
      return std::vector<wal::AnyRecord>{};
    }
    if (a.type == static_cast<uint8_t>(wal::RecordType::kData)) {
      std::erase_if(a.data.entries, [&](const wal::DataEntry& e) { return e.xid == missing; });
      if (a.data.entries.empty()) return std::vector<wal::AnyRecord>{};
    }
    return std::vector<wal::AnyRecord>{a};
  }));
  // node-0 logs a ROLLED_BACK record of a committed transaction 50 records later; and
  // for another, a ROLLED_BACK record before its PREPARED record, which it logs twice:
  // two entries there, one ROLLED_BACK, one PREPARED (its roles: 2 prepared, 1 committed,
  // 1 rolled back), and the node's state COMMITTED, which neither entry has. No other
  // node commits that one.
  wal::TxId twice, split;
  first_commit_after("node-0", 150, &twice);
  first_commit_after("node-0", twice.order + 10, &split);
  int countdown = -1;
  auto rolled_back = [](const wal::TxId& x) {
    wal::AnyRecord rb;
    rb.type = static_cast<uint8_t>(wal::RecordType::kTx);
    rb.tx.xid = x;
    rb.tx.state = wal::TxState::kRolledBack;
    return rb;
  };
  for (const char* other : {"node-1", "node-2"}) {
    ASSERT_TRUE(testing_support::RewriteWal(c + "/" + other + "/wal", [&](wal::AnyRecord& a) {
      return a.type == static_cast<uint8_t>(wal::RecordType::kTx) && a.tx.state == wal::TxState::kCommitted &&
                     a.tx.xid == split
                 ? 0
                 : 1;
    }));
  }
  ASSERT_TRUE(testing_support::RewriteWalRecords(c + "/node-0/wal", [&](const wal::AnyRecord& r) {
    if (r.type == static_cast<uint8_t>(wal::RecordType::kTx) && r.tx.xid == split &&
        r.tx.state == wal::TxState::kPrepared) {
      return std::vector<wal::AnyRecord>{rolled_back(split), r, r};
    }
    std::vector<wal::AnyRecord> out{r};
    if (r.type == static_cast<uint8_t>(wal::RecordType::kTx) && r.tx.xid == twice &&
        r.tx.state == wal::TxState::kCommitted) {
      countdown = 50;
    }
    if (countdown >= 0 && countdown-- == 0) out.push_back(rolled_back(twice));
    return out;
  }));

  auto rows = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"txs", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(c);
    const auto r = RunCli(args);
    EXPECT_EQ(r.code, 1) << r.err;  // the damage is reported
    return nlohmann::json::parse(r.out)["txs"];
  };
  const nlohmann::json all = rows({});
  std::map<std::string, std::set<std::string>> states;  // tx -> its nodes' states
  for (const auto& t : all) {
    for (const auto& n : t["nodes"]) states[t["tx"]].insert(n["state"]);
  }
  EXPECT_TRUE(states[prepared.ToString()].count("PREPARED"));
  EXPECT_TRUE(states[missing.ToString()].count("missing"));
  EXPECT_EQ(states[twice.ToString()], std::set<std::string>{"COMMITTED"});
  EXPECT_EQ(states[split.ToString()], (std::set<std::string>{"COMMITTED", "PREPARED"}));
  auto expect_rows = [&](const std::vector<std::string>& filter, const auto& pass) {
    nlohmann::json want = nlohmann::json::array();
    for (const auto& t : all) {
      if (pass(t)) want.push_back(t);
    }
    EXPECT_EQ(rows(filter), want) << filter.front();
  };
  auto has_state = [&](const std::string& s) {
    return [&, s](const nlohmann::json& t) { return states[t["tx"]].count(s) != 0; };
  };
  auto doubtful = [](const nlohmann::json& t) { return t["in_doubt"].get<bool>(); };
  expect_rows({"--in-doubt"}, doubtful);
  for (const std::string s : {"PREPARED", "COMMITTED", "ROLLED_BACK", "UNKNOWN", "missing"}) {
    expect_rows({"--state", s}, has_state(s));
  }
  expect_rows({"--state", "rolled_back"}, has_state("ROLLED_BACK"));
  expect_rows({"--in-doubt", "--state", "missing"},
              [&](const nlohmann::json& t) { return doubtful(t) && has_state("missing")(t); });
  std::set<std::string> in_doubt;
  for (const auto& t : rows({"--in-doubt"})) in_doubt.insert(t["tx"]);
  EXPECT_EQ(in_doubt, (std::set<std::string>{prepared.ToString(), missing.ToString(), split.ToString()}));
}

// txs finds a line's sides from runs of cuts (those finished before the commit After,
// those started after it Before unless their After set lists it). Both the text and the
// JSON table agree with the side rule (libcut/side.h) applied here, cut by cut, to what
// each WAL holds, with damage that breaks the runs: on node-1 a cut's After set lists a
// transaction committed before its Start (After, not Before), and on node-2 a cut's Start
// record comes after the next cut's (the cuts no longer follow one another).
TEST(Txs, TextSidesAreTheRuleForEveryCut) {
  testing_support::TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_TRUE(Simulate(c, 1200, 7, 5));
  const auto tx = static_cast<uint8_t>(wal::RecordType::kTx);
  const auto start = static_cast<uint8_t>(wal::RecordType::kCutStart);
  const auto finish = static_cast<uint8_t>(wal::RecordType::kCutFinish);
  // node-1: the second cut's After set lists the last transaction committed before its Start.
  wal::TxId listed;
  std::string listed_cut;
  int starts = 0;
  wal::TxId last_commit;
  ASSERT_TRUE(testing_support::RewriteWalRecords(c + "/node-1/wal", [&](const wal::AnyRecord& r) {
    wal::AnyRecord a = r;
    if (a.type == tx && a.tx.state == wal::TxState::kCommitted) last_commit = a.tx.xid;
    if (a.type == start && ++starts == 2) {
      listed = last_commit;
      listed_cut = a.cut_start.cut_id.ToString();
    }
    if (a.type == finish && a.cut_finish.cut_id.ToString() == listed_cut) a.cut_finish.after.push_back(listed);
    return std::vector<wal::AnyRecord>{a};
  }));
  ASSERT_FALSE(listed.IsNull());
  // node-2: the second cut's Start record moves to just after the third cut's Start.
  wal::AnyRecord moved;
  starts = 0;
  ASSERT_TRUE(testing_support::RewriteWalRecords(c + "/node-2/wal", [&](const wal::AnyRecord& r) {
    if (r.type == start && ++starts == 2) {
      moved = r;
      return std::vector<wal::AnyRecord>{};
    }
    if (r.type == start && starts == 3) return std::vector<wal::AnyRecord>{r, moved};
    return std::vector<wal::AnyRecord>{r};
  }));
  ASSERT_EQ(moved.type, start);

  // tx -> node -> short cut id -> side: by the rule, from each WAL's records.
  using Sides = std::map<std::string, std::map<std::string, std::map<std::string, std::string>>>;
  Sides want;
  for (const std::string node : {"node-0", "node-1", "node-2"}) {
    struct Cut {
      wal::Pointer start, finish;
      bool has_start = false, has_finish = false;
      std::set<wal::TxId> before, after;
    };
    std::map<std::string, Cut> cuts;
    std::map<wal::TxId, wal::Pointer> first_commit;
    auto reader = wal::WalReader::OpenDirectory(fmt::format("{}/{}/wal", c, node), {}, nullptr);
    ASSERT_TRUE(reader.ok());
    const wal::Record* r = nullptr;
    while ((*reader)->Next(&r)) {
      const wal::AnyRecord& a = r->decoded;
      if (a.type == start) {
        Cut& k = cuts[a.cut_start.cut_id.ToString()];
        k.start = r->ptr;
        k.has_start = true;
      } else if (a.type == finish) {
        Cut& k = cuts[a.cut_finish.cut_id.ToString()];
        k.finish = r->ptr;
        k.has_finish = true;
        k.before.insert(a.cut_finish.before.begin(), a.cut_finish.before.end());
        k.after.insert(a.cut_finish.after.begin(), a.cut_finish.after.end());
      } else if (a.type == tx && a.tx.state == wal::TxState::kCommitted) {
        first_commit.emplace(a.tx.xid, r->ptr);
      }
    }
    for (const auto& [x, commit] : first_commit) {
      auto& sides = want[x.ToString()][node];
      for (const auto& entry : cuts) {
        const std::string& id = entry.first;
        const auto& k = entry.second;
        if (!k.has_start || !k.has_finish) continue;
        const cut::Side side = cut::SideOfCommit(
            cut::RegionOf(commit, k.start, k.finish), [&, x = x] { return k.before.count(x) != 0; },
            [&, x = x] { return k.after.count(x) != 0; });
        sides[id.substr(0, 8)] = side == cut::Side::kBefore ? "Before" : "After";
      }
    }
  }
  // The same from each output, where each cut must appear once.
  Sides from_json, from_text;
  size_t repeated = 0;
  auto add = [&](Sides& to, const std::string& x, const std::string& node, const std::string& id,
                 const std::string& side) { repeated += !to[x][node].emplace(id, side).second; };
  const auto json = RunCli({"txs", "--json", c});
  const auto text = RunCli({"txs", c});
  ASSERT_EQ(json.code, text.code) << text.err;
  const auto parsed = nlohmann::json::parse(json.out);
  for (const auto& t : parsed["txs"]) {
    for (const auto& n : t["nodes"]) {
      for (const auto& [id, side] : n["sides"].items()) {
        add(from_json, t["tx"], n["node"], id.substr(0, 8), side.get<std::string>() == "before" ? "Before" : "After");
      }
    }
  }
  std::istringstream lines(text.out);
  std::string line, row;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word, node;
    words >> word;
    if (line.rfind("tx ", 0) == 0) {
      words >> row;
      continue;
    }
    if (line.rfind("  ", 0) != 0) continue;
    node = word;
    while (words >> word) {
      if (word.find('=') == 8) add(from_text, row, node, word.substr(0, 8), word.substr(9));
    }
  }
  EXPECT_EQ(repeated, 0u);
  auto compare = [&](const Sides& got, const char* what) {
    // No sides where the rule gives none (a node that did not commit the transaction).
    for (const auto& [x, by_node] : got) {
      for (const auto& [node, sides] : by_node) {
        const auto w = want.find(x);
        EXPECT_TRUE(sides.empty() || (w != want.end() && w->second.count(node) != 0))
            << what << ": tx " << x << " has sides on " << node << ", which did not commit it";
      }
    }
    size_t lines_with_sides = 0, differ = 0;
    for (const auto& [x, by_node] : want) {
      for (const auto& [node, sides] : by_node) {
        auto t = got.find(x);
        const bool same = t != got.end() && t->second.count(node) != 0 && t->second.at(node) == sides;
        lines_with_sides += same && !sides.empty();
        if (!same && ++differ <= 5) ADD_FAILURE() << what << ": tx " << x << " on " << node << ": not the rule's sides";
      }
    }
    EXPECT_GT(lines_with_sides, 2400u) << what;
  };
  compare(from_text, "text");
  compare(from_json, "JSON");
  // The damage is where the runs would be wrong: After for the listed transaction on node-1.
  EXPECT_EQ(want[listed.ToString()]["node-1"][listed_cut.substr(0, 8)], "After");
  EXPECT_EQ(from_text[listed.ToString()]["node-1"][listed_cut.substr(0, 8)], "After");
}

}  // namespace
