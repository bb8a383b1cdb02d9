// walcut diff: the transactions on the Before side of one cut and not the other are, node
// by node, exactly what restore applies for one and not the other, with the keys they
// wrote; cuts that have no side everywhere, or of two bases, are refused.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

nlohmann::json DiffJson(const std::vector<std::string>& args) {
  auto r = RunCli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
}

TEST(Diff, TheTransactionsThatDifferAreWhatRestoreAppliesForOneCutAndNotTheOther) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  // Some 2PC transactions end UNKNOWN on one participant: restore applies those writes by
  // the transaction's side, as it does a COMMITTED record's.
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--nodes", "4", "--backups", "1", "--txs", "3000", "--cuts", "3",
                    "--rollback-rate", "0.1", "--unknown-rate", "0.01", "--seed", "11"})
                .code,
            0);
  const auto cuts = DiffJson({"cuts", "--json", c});
  std::vector<std::string> ids;
  for (const auto& cut : cuts["cuts"]) {
    ASSERT_EQ(cut["status"], "consistent");
    ids.push_back(cut["id"]);
  }
  ASSERT_EQ(ids.size(), 3u);
  // What restore applies, per node, for the first and the last cut.
  std::map<std::string, int64_t> applied_a, applied_b;
  for (auto [id, applied] : {std::make_pair(ids[0], &applied_a), std::make_pair(ids[2], &applied_b)}) {
    const std::string out = dir.path() + "/r-" + id.substr(0, 8);
    const auto restored = DiffJson({"restore", "--json", "--cut", id, "-o", out, c});
    for (const auto& n : restored["nodes"]) (*applied)[n["node"]] = n["txs_applied"].get<int64_t>();
  }
  const auto d = DiffJson({"diff", "--json", c, ids[0], ids[2]});
  EXPECT_EQ(d["a"]["cut"], ids[0]);
  EXPECT_EQ(d["b"]["cut"], ids[2]);
  EXPECT_EQ(d["before_in_a_only"], 0) << "increments of one base are nested";
  // Restore counts COMMITTED and UNKNOWN records (a node with two roles in a transaction
  // logs two); diff lists transactions: each weighs its records on the node.
  std::map<std::pair<std::string, std::string>, int64_t> commits;  // (node, tx)
  size_t unknown = 0;
  auto txs = RunCli({"dump", "--json", "--type", "tx", c});
  for (size_t p = 0, q; (q = txs.out.find('\n', p)) != std::string::npos; p = q + 1) {
    const auto r = nlohmann::json::parse(txs.out.substr(p, q - p));
    if (r["state"] == "COMMITTED" || r["state"] == "UNKNOWN") {
      ++commits[{r["node"].get<std::string>(), r["tx"].get<std::string>()}];
      unknown += r["state"] == "UNKNOWN";
    }
  }
  ASSERT_GT(unknown, 0u) << "the cluster has UNKNOWN outcomes";
  std::map<std::string, int64_t> per_node;
  for (const auto& t : d["transactions"]) {
    EXPECT_EQ(t["a"], "After");
    EXPECT_EQ(t["b"], "Before");
    for (const auto& n : t["nodes"]) {
      per_node[n.get<std::string>()] += commits[{n.get<std::string>(), t["tx"].get<std::string>()}];
    }
  }
  ASSERT_FALSE(per_node.empty());
  for (const auto& [node, n] : applied_b) EXPECT_EQ(per_node[node], n - applied_a[node]) << node;
  EXPECT_EQ(d["before_in_b_only"].get<size_t>(), d["transactions"].size());
  // The keys of a transaction are those its data entries wrote.
  const auto& first = d["transactions"][0];
  std::set<std::tuple<uint64_t, uint64_t, std::string>> listed, written;
  for (const auto& k : first["keys"]) {
    listed.insert({k["cache"].get<uint64_t>(), k["partition"].get<uint64_t>(), k["key"].get<std::string>()});
  }
  auto dump = RunCli({"dump", "--json", "--type", "data", "--tx", first["tx"].get<std::string>(), c});
  ASSERT_EQ(dump.code, 0) << dump.err;
  for (size_t p = 0, q; (q = dump.out.find('\n', p)) != std::string::npos; p = q + 1) {
    const auto record = nlohmann::json::parse(dump.out.substr(p, q - p));
    for (const auto& e : record["entries"]) {
      written.insert({e["cache"].get<uint64_t>(), e["partition"].get<uint64_t>(), e["key"].get<std::string>()});
    }
  }
  EXPECT_EQ(listed, written);
  // Symmetric, and nothing against itself.
  const auto back = DiffJson({"diff", "--json", c, ids[2], ids[0]});
  EXPECT_EQ(back["before_in_a_only"], d["before_in_b_only"]);
  EXPECT_EQ(DiffJson({"diff", "--json", c, ids[1], ids[1]})["transactions"].size(), 0u);
  EXPECT_EQ(RunCli({"diff", c, "ffff", ids[0]}).code, 2);
}

TEST(Diff, CutsWithoutASideEverywhereOrOfTwoBasesAreRefused) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--crash", "node-1@2500", "--txs", "6000", "--seed", "2"}).code, 0);
  const auto cuts = DiffJson({"cuts", "--json", c});
  std::string failed, of_base, of_snap;
  for (const auto& cut : cuts["cuts"]) {
    if (cut["status"] != "consistent") failed = cut["id"];
    if (cut["status"] == "consistent" && cut["base"] == "base") of_base = cut["id"];
    if (cut["status"] == "consistent" && cut["base"] == "snap-1") of_snap = cut["id"];
  }
  ASSERT_FALSE(of_snap.empty());
  if (!failed.empty()) {
    auto r = RunCli({"diff", c, failed, of_snap});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("only consistent cuts"), std::string::npos) << r.err;
  }
  if (!of_base.empty()) {
    auto r = RunCli({"diff", c, of_base, of_snap});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("one base"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(failed.empty() && of_base.empty()) << "the crash left neither a failed cut nor one of the first base";
}

}  // namespace
