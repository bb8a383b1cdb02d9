// Faults, one transaction at a time: a server or client crash, a join, an UNKNOWN
// outcome, each at a chosen step of the protocol (constant delays, one message type held
// back). Each test asserts the records written (which nodes, which types, which flags and
// counter ranges) and the cut's outcome, both as the simulator saw it and as `check`
// finds it from the WALs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "libcut/cluster_check.h"
#include "libcut/cluster_file.h"
#include "libcut/cut_index.h"
#include "recovery/partition_file.h"
#include "sim/simulate.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

constexpr uint32_t kPartitions = 4;
constexpr uint32_t kAccounts = 16;

struct TxSeen {
  wal::TxState state;
  uint8_t flags;
  wal::Pointer at;
};

// What one node's WAL holds, for the assertions.
struct NodeLog {
  bool exists = false;
  std::vector<TxSeen> txs;  // TxRecords of the scenario's transaction, in order
  std::vector<wal::RollbackRecord> rollbacks;
  std::vector<std::string> snapshots;
  std::map<wal::Uuid, std::pair<bool, bool>> cuts;  // id -> has Start, has Finish
  size_t torn = 0, errors = 0;
  wal::Pointer last_snapshot;
};

NodeLog ReadLog(const std::string& wal_dir) {
  NodeLog out;
  if (!fs::exists(wal_dir)) return out;
  out.exists = true;
  auto reader =
      wal::WalReader::OpenDirectory(wal_dir, {}, [&](const wal::Issue& i) { (i.IsError() ? out.errors : out.torn)++; });
  if (!reader.ok()) {
    ++out.errors;
    return out;
  }
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kTx: out.txs.push_back({a.tx.state, a.tx.flags, r->ptr}); break;
      case wal::RecordType::kRollback: out.rollbacks.push_back(a.rollback); break;
      case wal::RecordType::kClusterSnapshot:
        out.snapshots.emplace_back(a.snapshot.name);
        out.last_snapshot = r->ptr;
        break;
      case wal::RecordType::kCutStart: out.cuts[a.cut_start.cut_id].first = true; break;
      case wal::RecordType::kCutFinish: out.cuts[a.cut_finish.cut_id].second = true; break;
      default: break;
    }
  }
  return out;
}

struct SimRun {
  TempDir dir;
  sim::SimSummary summary;
  nlohmann::json truth_cuts, truth_txs, cluster;
  std::map<std::string, NodeLog> logs;  // servers
  cut::ClusterReport report;

  const NodeLog& log(const std::string& n) const { return logs.at(n); }
  wal::Uuid cut(size_t i) const { return *wal::Uuid::Parse(truth_cuts[i]["id"].get<std::string>()); }
  const cut::CutReport& checked(size_t i) const {
    for (const auto& c : report.cuts) {
      if (c.id == cut(i)) return c;
    }
    // A cut that failed everywhere before any Start record leaves nothing in the WALs.
    static const cut::CutReport absent = [] {
      cut::CutReport r;
      r.status = cut::CutStatus::kIncomplete;
      r.reason = "no record of it in any WAL";
      return r;
    }();
    return absent;
  }
};

sim::SimConfig Base(uint32_t nodes, uint32_t backups) {
  sim::SimConfig c;
  c.nodes = nodes;
  c.backups = backups;
  c.clients = 1;
  c.partitions = kPartitions;
  c.accounts = kAccounts;
  c.txs = 1;
  c.concurrency = 1;
  c.cuts = 1;
  c.truth = true;
  c.constant_delays = true;
  c.delay_min_us = 50;
  c.delay_mean_us = 0;
  c.discovery_delay_us = 30;
  c.start_delay_us = 20;
  c.lock_timeout_ms = 1000;
  c.segment_size = 64 << 10;
  c.fixed_near = static_cast<int32_t>(nodes);  // client-0
  return c;
}

void Simulate(sim::SimConfig c, SimRun* run) {
  c.out_dir = run->dir.path();
  auto s = sim::Simulate(c);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  run->summary = *s;
  std::ifstream cuts(c.out_dir + "/truth/cuts.json");
  run->truth_cuts = nlohmann::json::parse(cuts)["cuts"];
  std::ifstream txs(c.out_dir + "/truth/transactions.jsonl");
  run->truth_txs = nlohmann::json::array();
  for (std::string line; std::getline(txs, line);) run->truth_txs.push_back(nlohmann::json::parse(line));
  std::ifstream cl(c.out_dir + "/cluster.json");
  run->cluster = nlohmann::json::parse(cl);
  std::vector<cut::NodeIndex> indexes;
  for (uint32_t n = 0; n < c.nodes; ++n) {
    std::string name = fmt::format("node-{}", n);
    run->logs[name] = ReadLog(c.out_dir + "/" + name + "/wal");
    auto idx = cut::BuildNodeIndex(name, c.out_dir + "/" + name + "/wal");
    ASSERT_TRUE(idx.ok());
    indexes.push_back(std::move(*idx));
  }
  auto cluster = cut::ReadClusterFile(c.out_dir);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  run->report = cut::CheckCluster(indexes, &*cluster);
}

// Accounts for the placement wanted, from the cluster's own assignment: two keys on two
// primaries, or one key.
std::vector<uint32_t> Accounts(const sim::SimConfig& base, bool two_primaries) {
  TempDir dir;
  sim::SimConfig c = base;
  c.out_dir = dir.path();
  c.txs = 0;
  c.faults.clear();
  EXPECT_TRUE(sim::Simulate(c).ok());
  std::ifstream in(dir.path() + "/cluster.json");
  auto assignment = nlohmann::json::parse(in)["topology_versions"][0]["assignment"];
  auto primary = [&](uint32_t a) {
    std::string key = fmt::format("acct-{}", a);
    return assignment[XXH3_64bits(key.data(), key.size()) % kPartitions][0].get<std::string>();
  };
  if (!two_primaries) return {0};
  for (uint32_t a = 0; a < kAccounts; ++a) {
    for (uint32_t b = a + 1; b < kAccounts; ++b) {
      if (primary(a) != primary(b)) return {a, b};
    }
  }
  return {};
}

// The servers that hold a copy of the accounts' partitions, primaries first.
std::vector<std::string> Holders(const SimRun& run, const std::vector<uint32_t>& accounts, bool primaries_only) {
  std::vector<std::string> out;
  auto assignment = run.cluster["topology_versions"][0]["assignment"];
  for (uint32_t a : accounts) {
    std::string key = fmt::format("acct-{}", a);
    auto row = assignment[XXH3_64bits(key.data(), key.size()) % kPartitions];
    for (size_t i = 0; i < (primaries_only ? 1 : row.size()); ++i) {
      std::string n = row[i].get<std::string>();
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

sim::Fault Crash(sim::FaultKind kind, const std::string& node, double at_us) {
  sim::Fault f;
  f.kind = kind;
  f.node = node;
  f.when.by_time = true;
  f.when.at_ns = static_cast<uint64_t>(at_us * 1000);
  return f;
}

// Sum of the balances in the surviving servers' data/, one copy per partition, and
// whether every copy of each partition agrees and has no gap.
void ExpectMoneyAndCopies(const SimRun& run, int64_t expected_total) {
  std::map<uint32_t, recovery::PartitionFile> first;
  int64_t total = 0;
  for (const auto& [name, log] : run.logs) {
    std::string data = run.dir.path() + "/" + name + "/data";
    if (!fs::exists(data)) continue;
    for (const auto& f : recovery::ListPartitionFiles(data)) {
      auto pf = recovery::ReadPartitionFile(f);
      ASSERT_TRUE(pf.ok()) << f;
      EXPECT_EQ(pf->lwm, pf->hwm) << f << ": a gap is left";
      auto [it, fresh] = first.emplace(pf->partition, *pf);
      if (fresh) {
        for (const auto& e : pf->entries) total += std::stoll(e.value);
      } else {
        EXPECT_EQ(recovery::ContentHash(it->second), recovery::ContentHash(*pf)) << f << " differs";
        EXPECT_EQ(it->second.lwm, pf->lwm) << f;
      }
    }
  }
  EXPECT_EQ(first.size(), kPartitions);
  EXPECT_EQ(total, expected_total);
}

size_t CountTx(const NodeLog& log, wal::TxState state, bool recovery) {
  size_t n = 0;
  for (const auto& t : log.txs) {
    n += t.state == state && ((t.flags & wal::kTxFlagRecoveryFinish) != 0) == recovery;
  }
  return n;
}

// A server that takes part in a running cut's watched transaction stops: the cut fails
// on every node (no Finish anywhere), recovery commits the transaction (the near node
// decided to commit) on every surviving participant with RECOVERY_FINISH, the backups
// take over, and the survivors take a full snapshot before anything else.
TEST(Faults, ServerCrashDuringACutFailsItOnEveryNodeAndRecoveryCommits) {
  sim::SimConfig c = Base(3, 1);
  c.fixed_accounts = Accounts(c, true);
  ASSERT_EQ(c.fixed_accounts.size(), 2u);
  c.delay_mean_by_type_us[sim::MsgType::kNearFinishRequest] = 3000;  // held
  c.cut_at_us = {600};
  SimRun probe;
  Simulate(c, &probe);
  const std::string victim = Holders(probe, c.fixed_accounts, true)[0];
  c.faults = {Crash(sim::FaultKind::kCrashServer, victim, 1500)};
  SimRun run;
  Simulate(c, &run);
  ASSERT_EQ(run.truth_cuts.size(), 1u);
  EXPECT_EQ(run.truth_cuts[0]["verdict"], "failed");
  EXPECT_NE(run.truth_cuts[0]["reason"].get<std::string>().find("left the cluster"), std::string::npos)
      << run.truth_cuts[0]["reason"];
  for (const auto& [name, log] : run.logs) {
    EXPECT_EQ(log.errors, 0u) << name;
    ASSERT_TRUE(log.cuts.count(run.cut(0))) << name << " never started the cut";
    EXPECT_TRUE(log.cuts.at(run.cut(0)).first) << name;
    EXPECT_FALSE(log.cuts.at(run.cut(0)).second) << name << " has a Finish record";
  }
  EXPECT_NE(run.checked(0).status, cut::CutStatus::kConsistent);
  // Recovery: committed on every surviving participant, flagged; nowhere on the victim.
  size_t recovered = 0;
  for (const auto& n : Holders(run, c.fixed_accounts, false)) {
    if (n == victim) {
      EXPECT_EQ(
          CountTx(run.log(n), wal::TxState::kCommitted, false) + CountTx(run.log(n), wal::TxState::kCommitted, true),
          0u);
      continue;
    }
    // One record per role the node had (a node can be primary of one key, backup of the other).
    EXPECT_GE(CountTx(run.log(n), wal::TxState::kCommitted, true), 1u) << n;
    EXPECT_EQ(CountTx(run.log(n), wal::TxState::kCommitted, false), 0u) << n;
    ++recovered;
  }
  EXPECT_GE(recovered, 2u);
  EXPECT_EQ(run.truth_txs.at(0)["outcome"], "committed");
  EXPECT_EQ(run.truth_txs.at(0)["recovered"], true);
  // The leave: version 2 without the victim, the victim marked; a new full snapshot on
  // the survivors only, after the recovery records.
  auto versions = run.cluster["topology_versions"];
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[1]["event"], victim + " left");
  for (const auto& row : versions[1]["assignment"]) {
    EXPECT_EQ(std::count(row.begin(), row.end(), victim), 0) << row;
    EXPECT_GE(row.size(), 1u);
  }
  for (const auto& [name, log] : run.logs) {
    bool survivor = name != victim;
    EXPECT_EQ(log.snapshots.size(), survivor ? 2u : 1u) << name;
    EXPECT_EQ(fs::exists(run.dir.path() + "/" + name + "/snapshots/snap-1/snapshot.json"), survivor) << name;
    EXPECT_EQ(fs::exists(run.dir.path() + "/" + name + "/data"), survivor) << name;
    if (survivor && !log.txs.empty()) {
      EXPECT_LT(log.txs.back().at, log.last_snapshot) << name;
    }
  }
  ExpectMoneyAndCopies(run, int64_t{kAccounts} * c.balance);
}

// --torn-tail: the crashed server's WAL ends inside its last record, which readers report
// as a torn tail (not corruption); cuts before the crash stay checkable and consistent.
TEST(Faults, TornTailOfACrashedServerIsReportedAndNotAnError) {
  sim::SimConfig c = Base(3, 1);
  c.txs = 400;
  c.concurrency = 4;
  c.fixed_near = -1;
  c.constant_delays = false;
  c.delay_mean_us = 100;
  c.cuts = 3;
  c.faults = {sim::Fault{sim::FaultKind::kCrashServer, "node-2", sim::FaultTime{false, 200, 0}}};
  c.torn_tail = true;
  SimRun run;
  Simulate(c, &run);
  EXPECT_EQ(run.log("node-2").torn, 1u);
  EXPECT_EQ(run.log("node-2").errors, 0u);
  EXPECT_EQ(run.log("node-0").torn + run.log("node-1").torn, 0u);
  for (const auto& cr : run.report.cuts) EXPECT_NE(cr.status, cut::CutStatus::kUnverifiable) << cr.reason;
  for (size_t i = 0; i < run.truth_cuts.size(); ++i) {
    EXPECT_EQ(run.checked(i).status == cut::CutStatus::kConsistent, run.truth_cuts[i]["verdict"] == "complete")
        << run.checked(i).reason;
  }
  ExpectMoneyAndCopies(run, int64_t{kAccounts} * c.balance);
}

// The client stops while the primaries' prepare requests to their backups are held: no
// participant committed, so recovery rolls back (ROLLED_BACK with RECOVERY_FINISH and the
// RollbackRecords on the primaries; the RollbackRecords alone on the backups, which never
// saw the prepare). A rollback does not fail the cut watching it.
TEST(Faults, PrepareHeldThenClientStopsRollsBackAndTheCutSucceeds) {
  sim::SimConfig c = Base(3, 1);
  c.fixed_accounts = Accounts(c, true);
  c.delay_mean_by_type_us[sim::MsgType::kDhtPrepareRequest] = 3000;
  c.cut_at_us = {400};
  c.faults = {Crash(sim::FaultKind::kCrashClient, "client-0", 1000)};
  SimRun run;
  Simulate(c, &run);
  ASSERT_EQ(run.truth_cuts.size(), 1u);
  EXPECT_EQ(run.truth_cuts[0]["verdict"], "complete") << run.truth_cuts[0]["reason"];
  EXPECT_EQ(run.checked(0).status, cut::CutStatus::kConsistent) << run.checked(0).reason;
  EXPECT_EQ(run.truth_txs.at(0)["outcome"], "rolled-back");
  const auto primaries = Holders(run, c.fixed_accounts, true);
  for (const auto& n : Holders(run, c.fixed_accounts, false)) {
    const NodeLog& log = run.log(n);
    bool primary = std::find(primaries.begin(), primaries.end(), n) != primaries.end();
    EXPECT_EQ(CountTx(log, wal::TxState::kRolledBack, true), primary ? 1u : 0u) << n;
    EXPECT_EQ(CountTx(log, wal::TxState::kCommitted, false) + CountTx(log, wal::TxState::kCommitted, true), 0u) << n;
    // Each copy closes the range its primary reserved: one counter per key.
    uint64_t closed = 0;
    for (const auto& rb : log.rollbacks) closed += rb.range;
    EXPECT_GE(closed, 1u) << n;
  }
  ExpectMoneyAndCopies(run, int64_t{kAccounts} * c.balance);
}

// One primary, two backups (2PC on one key). The primary commits; its finish requests to
// the backups are held; the client stops. Recovery commits on the backups (a participant
// committed), flagged RECOVERY_FINISH, and the cut watching it there fails. The next cut
// succeeds. With the ignore-recovery bug the same cut completes, and `check` finds the
// transaction After on the primary (stamped) and Before on the backups.
TEST(Faults, FinishHeldThenClientStopsRecoveryCommitsAndTheCutFails) {
  for (bool bug : {false, true}) {
    sim::SimConfig c = Base(3, 2);
    c.fixed_accounts = Accounts(c, false);
    c.delay_mean_by_type_us[sim::MsgType::kDhtFinishRequest] = 3000;
    c.cut_at_us = {250, 6000};
    c.cuts = 2;
    c.faults = {Crash(sim::FaultKind::kCrashClient, "client-0", 1000)};
    if (bug) c.bug = cut::InjectedBug::kIgnoreRecovery;
    SimRun run;
    Simulate(c, &run);
    ASSERT_EQ(run.truth_cuts.size(), 2u);
    const std::string primary = Holders(run, c.fixed_accounts, true)[0];
    for (const auto& n : Holders(run, c.fixed_accounts, false)) {
      EXPECT_EQ(CountTx(run.log(n), wal::TxState::kCommitted, n != primary), 1u) << n;
    }
    EXPECT_EQ(run.truth_cuts[1]["verdict"], "complete");
    EXPECT_EQ(run.checked(1).status, cut::CutStatus::kConsistent) << run.checked(1).reason;
    if (!bug) {
      EXPECT_EQ(run.truth_cuts[0]["verdict"], "failed");
      EXPECT_NE(run.truth_cuts[0]["reason"].get<std::string>().find("transaction recovery"), std::string::npos)
          << run.truth_cuts[0]["reason"];
      EXPECT_NE(run.checked(0).status, cut::CutStatus::kConsistent);
    } else {
      EXPECT_EQ(run.truth_cuts[0]["verdict"], "complete");
      const auto& r = run.checked(0);
      EXPECT_EQ(r.status, cut::CutStatus::kInconsistent);
      EXPECT_TRUE(std::any_of(r.violations.begin(), r.violations.end(), [](const cut::Violation& v) {
        return v.kind == cut::Kind::kSideMismatch;
      })) << r.reason;
    }
  }
}

// A client joins. Joining before the cut's discovery message, it learns the id (it
// stamps its transaction with it); joining after, it does not (no stamp). Either way its
// transaction is After on every node, and the cut is consistent.
TEST(Faults, AJoiningClientLearnsTheCutOnlyIfItJoinedFirstAndItsTransactionIsAfter) {
  for (bool join_first : {true, false}) {
    sim::SimConfig c = Base(3, 1);
    c.clients = 0;
    c.fixed_near = 3;  // the client that joins: client-0
    c.fixed_accounts = Accounts(c, true);
    sim::Fault join;
    join.kind = sim::FaultKind::kJoinClient;
    join.when.by_time = true;
    join.when.at_ns = join_first ? 100000 : 160000;
    c.faults = {join};
    c.cut_at_us = {join_first ? 420.0 : 150.0};
    c.start_delay_us = join_first ? 20 : 600;
    SimRun run;
    Simulate(c, &run);
    ASSERT_EQ(run.truth_txs.size(), 1u);
    EXPECT_EQ(run.truth_txs[0]["near"], "client-0");
    EXPECT_EQ(run.truth_txs[0]["outcome"], "committed");
    ASSERT_EQ(run.truth_cuts.size(), 1u);
    EXPECT_EQ(run.truth_cuts[0]["verdict"], "complete");
    EXPECT_EQ(run.truth_cuts[0]["topology_version"], join_first ? 2 : 1);
    if (join_first) {
      EXPECT_EQ(run.truth_txs[0]["stamp"], run.truth_cuts[0]["id"]) << "the joined client did not learn the cut";
    } else {
      EXPECT_TRUE(run.truth_txs[0]["stamp"].is_null()) << "a client that joined later adopted the cut";
    }
    const auto& r = run.checked(0);
    EXPECT_EQ(r.status, cut::CutStatus::kConsistent) << r.reason;
    auto xid = wal::TxId::Parse(run.truth_txs[0]["tx"].get<std::string>());
    ASSERT_TRUE(xid.has_value());
    EXPECT_EQ(xid->topology_version, 2u);
    // After on every node that committed it, by the cut index.
    std::vector<std::string> holders = Holders(run, c.fixed_accounts, false);
    for (const auto& n : holders) {
      auto idx = cut::BuildNodeIndex(n, run.dir.path() + "/" + n + "/wal");
      ASSERT_TRUE(idx.ok());
      ASSERT_EQ(idx->cuts.size(), 1u);
      bool found = false;
      for (const auto& t : idx->cuts[0].txs) {
        if (t.xid == *xid) {
          found = true;
          EXPECT_EQ(t.side, cut::Side::kAfter) << n;
        }
      }
      if (!found) {
        // Committed after the window the index keeps: After by position.
        EXPECT_TRUE(idx->cuts[0].has_finish) << n;
      }
    }
    auto versions = run.cluster["topology_versions"];
    ASSERT_EQ(versions.size(), 2u);
    EXPECT_EQ(versions[1]["event"], "client-0 joined");
  }
}

// --unknown-rate 1: one participant of the transaction logs it UNKNOWN (with its
// DataRecord); the cut watching it fails; money and copies still agree.
TEST(Faults, AnUnknownOutcomeFailsTheCutWatchingIt) {
  sim::SimConfig c = Base(3, 1);
  c.fixed_accounts = Accounts(c, true);
  c.delay_mean_by_type_us[sim::MsgType::kNearFinishRequest] = 1500;
  c.cut_at_us = {600};
  c.unknown_rate = 1;
  SimRun run;
  Simulate(c, &run);
  size_t unknown = 0, committed = 0;
  for (const auto& [name, log] : run.logs) {
    unknown += CountTx(log, wal::TxState::kUnknown, false);
    committed += CountTx(log, wal::TxState::kCommitted, false);
  }
  EXPECT_EQ(unknown, 1u);
  EXPECT_GE(committed, 3u);
  ASSERT_EQ(run.truth_cuts.size(), 1u);
  EXPECT_EQ(run.truth_cuts[0]["verdict"], "failed");
  EXPECT_NE(run.truth_cuts[0]["reason"].get<std::string>().find("UNKNOWN"), std::string::npos);
  EXPECT_NE(run.checked(0).status, cut::CutStatus::kConsistent);
  ExpectMoneyAndCopies(run, int64_t{kAccounts} * c.balance);
}

TEST(Faults, ACrashThatWouldLoseAPartitionOrEveryServerIsRefused) {
  TempDir dir;
  sim::SimConfig c = Base(3, 0);
  c.out_dir = dir.path();
  c.faults = {Crash(sim::FaultKind::kCrashServer, "node-1", 100)};
  auto s = sim::Simulate(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), wal::StatusCode::kInvalidArgument);
  c.faults = {Crash(sim::FaultKind::kCrashServer, "node-7", 100)};
  c.backups = 1;
  EXPECT_FALSE(sim::Simulate(c).ok());
  c.faults = {Crash(sim::FaultKind::kCrashClient, "node-1", 100)};
  EXPECT_FALSE(sim::Simulate(c).ok());
}

}  // namespace
