#include <memory>

#include "tools/command.h"
#include "tools/simulate.h"

namespace tools {
namespace {

struct SimulateArgs {
  SimulateOptions options;
  CommonFlags common;
  std::string segment_size = "16M";
  std::string compress = "none";
  std::string near = "any";
  std::string bug = "none";
  std::vector<std::string> delays;
  std::vector<std::string> discovery;
  std::vector<std::string> crashes, client_crashes, joins;
};

// "US" for every node, or "NAME=US" / "TYPE=US" for one.
bool SplitAssignment(const std::string& s, std::string* name, double* value) {
  size_t eq = s.find('=');
  try {
    size_t used = 0;
    *value = std::stod(eq == std::string::npos ? s : s.substr(eq + 1), &used);
    if (used != (eq == std::string::npos ? s.size() : s.size() - eq - 1) || !(*value >= 0 && *value <= 1e9))
      return false;
  } catch (...) {
    return false;
  }
  *name = eq == std::string::npos ? "" : s.substr(0, eq);
  return true;
}

std::string Validate(SimulateArgs& a) {
  sim::SimConfig& c = a.options.config;
  a.options.json = a.common.json;
  a.options.quiet = a.common.quiet;
  std::vector<std::string> errors;
  if (!ParseSize(a.segment_size, &c.segment_size)) {
    errors.push_back(fmt::format("--segment-size: \"{}\" is not a size (N, NK, NM, NG)", a.segment_size));
  } else if (c.segment_size < 4096 || c.segment_size > (1ull << 30)) {
    errors.push_back("--segment-size: must be between 4K and 1G");
  }
  c.compress = a.compress == "lz4";
  if (a.near == "any")
    c.near = sim::NearMode::kAny;
  else if (a.near == "clients")
    c.near = sim::NearMode::kClients;
  else
    c.near = sim::NearMode::kServers;
  if (!cut::ParseInjectedBug(a.bug, &c.bug)) errors.push_back(fmt::format("--inject-bug: unknown \"{}\"", a.bug));
  for (const auto& d : a.delays) {
    std::string name;
    double v = 0;
    sim::MsgType t;
    if (!SplitAssignment(d, &name, &v)) {
      errors.push_back(fmt::format("--delay: \"{}\" is not US or TYPE=US (US from 0 to 1e9)", d));
    } else if (name.empty()) {
      c.delay_mean_us = v;
    } else if (!sim::ParseMsgType(name, &t)) {
      errors.push_back(fmt::format("--delay: unknown message type \"{}\"", name));
    } else {
      c.delay_mean_by_type_us[t] = v;
    }
  }
  for (const auto& d : a.discovery) {
    std::string name;
    double v = 0;
    if (!SplitAssignment(d, &name, &v)) {
      errors.push_back(fmt::format("--discovery-delay: \"{}\" is not US or NODE=US (US from 0 to 1e9)", d));
      continue;
    }
    if (name.empty()) {
      c.discovery_delay_us = v;
      continue;
    }
    uint32_t index = 0;
    bool found = false;
    for (uint32_t i = 0; i < c.nodes; ++i) {
      if (name == fmt::format("node-{}", i)) index = i, found = true;
    }
    for (uint32_t i = 0; i < c.clients; ++i) {
      if (name == fmt::format("client-{}", i)) index = c.nodes + i, found = true;
    }
    if (!found)
      errors.push_back(fmt::format("--discovery-delay: no node \"{}\"", name));
    else
      c.discovery_delay_by_node_us[index] = v;
  }
  if (c.nodes == 0) errors.push_back("--nodes: at least one server is needed");
  if (c.backups >= c.nodes) errors.push_back("--backups: must be less than --nodes");
  if (c.accounts < 2) errors.push_back("--accounts: at least 2");
  if (c.keys_per_tx < 2 || c.keys_per_tx > c.accounts) errors.push_back("--keys-per-tx: between 2 and --accounts");
  if (c.near == sim::NearMode::kClients && c.clients == 0) errors.push_back("--near clients needs --clients > 0");
  if (c.balance > 0 && c.accounts > INT64_MAX / c.balance) {
    errors.push_back("--accounts times --balance: the total money must fit in 63 bits");
  }
  c.faults.clear();
  auto faults = [&](const std::vector<std::string>& specs, sim::FaultKind kind, const char* flag) {
    for (const auto& spec : specs) {
      sim::Fault f;
      f.kind = kind;
      std::string e = sim::ParseFaultSpec(spec, kind == sim::FaultKind::kJoinClient ? nullptr : &f.node, &f.when);
      if (!e.empty()) errors.push_back(fmt::format("{}: {}", flag, e));
      c.faults.push_back(f);
    }
  };
  faults(a.crashes, sim::FaultKind::kCrashServer, "--crash");
  faults(a.joins, sim::FaultKind::kJoinClient, "--join-client");
  faults(a.client_crashes, sim::FaultKind::kCrashClient, "--crash-client");
  if (c.torn_tail && a.crashes.empty()) errors.push_back("--torn-tail: needs --crash");
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : "\n") + e;
  return joined;
}

}  // namespace

void RegisterSimulate(CLI::App& app, CommandContext& ctx) {
  auto a = std::make_shared<SimulateArgs>();
  sim::SimConfig& c = a->options.config;
  CLI::App* sub = app.add_subcommand("simulate", "Run a simulated cluster and write its WAL directories");
  sub->add_option("-o,--output", a->options.out, "Cluster directory to create (must not exist or be empty)")
      ->required();
  AddCommonFlags(sub, &a->common);
  AddWhole(sub, "--nodes", &c.nodes, 1, 1000, "Server nodes (default 3)");
  AddWhole(sub, "--clients", &c.clients, 0, 1000, "Client nodes (default 1)");
  AddWhole(sub, "--partitions", &c.partitions, 1, 65535, "Partitions of the cache (default 32)");
  AddWhole(sub, "--backups", &c.backups, 0, 999, "Backups per partition (default 1)");
  AddWhole(sub, "--accounts", &c.accounts, 2, 10000000, "Bank accounts (default 1000)");
  AddWhole(sub, "--balance", &c.balance, 0, 1000000000000, "Initial balance per account (default 1000)");
  AddWhole(sub, "--txs", &c.txs, 0, 1000000000, "Transfers to run (default 10000)");
  AddWhole(sub, "--concurrency", &c.concurrency, 1, 100000, "Transactions in flight (default 16)");
  AddWhole(sub, "--keys-per-tx", &c.keys_per_tx, 2, 64, "Accounts each transfer touches (default 2)");
  sub->add_option("--near", a->near, "Where transactions start: any, clients or servers (default any)")
      ->check(CLI::IsMember({"any", "clients", "servers"}));
  AddWhole(sub, "--cuts", &c.cuts, 0, 100000, "Incremental snapshots (consistent cuts) to start (default 3)");
  AddWhole(sub, "--cut-interval", &c.cut_interval, 0, 1000000000,
           "Finished transactions between cuts (default: spread over the run)");
  AddWhole(sub, "--seed", &c.seed, 0, UINT64_MAX, "Seed of the run (default 1)");
  sub->add_option("--segment-size", a->segment_size, "WAL segment size, suffix K/M/G (default 16M)");
  sub->add_option("--compress", a->compress, "Sealed segments: none or lz4 (default none)")
      ->check(CLI::IsMember({"none", "lz4"}));
  sub->add_flag("--fsync", c.fsync, "fsync the WAL on every segment roll and at the end, and every file written");
  sub->add_flag("--truth", c.truth, "Also write DIR/truth/: the simulator's record of every transaction and cut");
  sub->add_option("--delay", a->delays,
                  "Mean message delay in microseconds, US for all types or TYPE=US for one (default 100)");
  AddReal(sub, "--delay-min", &c.delay_min_us, 0, 1e9, "Minimum message delay in microseconds (default 20)");
  sub->add_flag("--fifo", c.fifo, "Deliver messages between two nodes in the order sent");
  sub->add_option("--discovery-delay", a->discovery,
                  "Mean discovery delay in microseconds, US for all nodes or NODE=US for one (default 1000)");
  AddReal(sub, "--start-delay", &c.start_delay_us, 0, 1e9,
          "Mean delay in microseconds between a cut's start and its Start record (default 200)");
  AddReal(sub, "--lock-timeout", &c.lock_timeout_ms, 0, 1e6, "Lock timeout in milliseconds, above 0 (default 100)",
          true);
  AddReal(sub, "--close-rate", &c.close_rate, 0, 1,
          "Share of transfers that close (delete) their first account, all its money moved out first; a closed "
          "account is reopened (created) by the next transaction on it (default 0.01)");
  AddReal(sub, "--rollback-rate", &c.rollback_rate, 0, 1,
          "Share of 2PC transactions rolled back after prepare (default 0)");
  AddReal(sub, "--unknown-rate", &c.unknown_rate, 0, 1,
          "Share of 2PC transactions one participant ends in the UNKNOWN state (default 0)");
  sub->add_option("--crash", a->crashes,
                  "Stop server NODE at WHEN: a transaction count (@5000) or a simulated time (@2.5s); repeatable")
      ->type_name("NODE@WHEN")
      ->allow_extra_args(false);  // one value each time
  sub->add_flag("--torn-tail", c.torn_tail, "A crashed server's last WAL record is cut short");
  sub->add_option("--crash-client", a->client_crashes, "Stop client CLIENT at WHEN; repeatable")
      ->type_name("CLIENT@WHEN")
      ->allow_extra_args(false);  // one value each time
  sub->add_option("--join-client", a->joins, "A new client joins at WHEN (named after the others); repeatable")
      ->type_name("@WHEN")
      ->allow_extra_args(false);  // one value each time
  sub->add_option("--inject-bug", a->bug,
                  "Run a deliberately broken cut algorithm: no-tx-cut-id, no-wrap, early-finish, ignore-recovery")
      ->check(CLI::IsMember({"none", "no-tx-cut-id", "no-wrap", "early-finish", "ignore-recovery"}));
  sub->callback([a, &ctx] {
    std::string errors = Validate(*a);
    if (!errors.empty()) throw CLI::ValidationError(errors);
    ctx.run = [a, &ctx] {
      a->options.stop = ctx.Cancellable();
      return RunSimulate(a->options, *ctx.output);
    };
  });
}

}  // namespace tools
