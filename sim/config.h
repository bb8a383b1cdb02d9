// Everything `walcut simulate` can be told: the cluster, the workload, the network,
// the cut schedule and the faults.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libcut/cut_manager.h"

namespace sim {

enum class MsgType : uint8_t {
  kLockRequest,
  kLockResponse,
  kLockRelease,
  kNearPrepareRequest,
  kNearPrepareResponse,
  kDhtPrepareRequest,
  kDhtPrepareResponse,
  kNearFinishRequest,
  kNearFinishResponse,
  kDhtFinishRequest,
  kCutFinished,  // node -> initiator: Finish record written
  kCutFailed,    // node -> initiator: the cut failed here
  kCount,
};
const char* MsgTypeName(MsgType t);
bool ParseMsgType(const std::string& name, MsgType* out);

enum class NearMode { kAny, kClients, kServers };

// When a fault happens: once this many transactions have finished (`@5000`), or at this
// simulated time (`@2.5s`).
struct FaultTime {
  bool by_time = false;
  uint64_t txs = 0;
  uint64_t at_ns = 0;
};

enum class FaultKind { kCrashServer, kCrashClient, kJoinClient };

struct Fault {
  FaultKind kind = FaultKind::kCrashServer;
  std::string node;  // "node-2", "client-0"; empty for a join
  FaultTime when;
};

// Parses "NODE@WHEN" (or "@WHEN" when `node` is null): WHEN is a transaction count or a
// time with the suffix s, ms or us. Returns an error message, empty on success.
std::string ParseFaultSpec(const std::string& spec, std::string* node, FaultTime* when);

struct SimConfig {
  std::string out_dir;
  // Set from outside (SIGINT/SIGTERM): the run stops with kCancelled.
  const std::atomic<bool>* stop = nullptr;
  // When set, counts the transactions finished (committed or rolled back), for a
  // progress display; written by the simulation, read from anywhere.
  std::atomic<uint64_t>* txs_done = nullptr;
  uint32_t nodes = 3;
  uint32_t clients = 1;
  uint32_t partitions = 32;
  uint32_t backups = 1;
  uint32_t accounts = 1000;
  int64_t balance = 1000;
  uint64_t txs = 10000;
  uint32_t concurrency = 16;
  uint32_t keys_per_tx = 2;
  NearMode near = NearMode::kAny;
  uint32_t cuts = 3;
  uint64_t cut_interval = 0;  // finished transactions between cuts; 0 = spread evenly
  uint64_t seed = 1;
  uint64_t segment_size = 16ull << 20;
  bool compress = false;
  bool fsync = false;
  bool truth = false;
  // Network: delay = min + exponential(mean), per message type when given.
  double delay_min_us = 20;
  double delay_mean_us = 100;
  std::map<MsgType, double> delay_mean_by_type_us;
  bool fifo = false;
  // Discovery: each node gets each discovery event after its own delay, in order.
  double discovery_delay_us = 1000;
  std::map<uint32_t, double> discovery_delay_by_node_us;  // node index (servers, then clients)
  // The Start record is written this long after the atomic start (background step).
  double start_delay_us = 200;
  double lock_timeout_ms = 100;
  double close_rate = 0.01;   // share of transfers that close (delete) their first account
  double rollback_rate = 0;   // share of 2PC transactions the near node rolls back
  double unknown_rate = 0;    // share of 2PC transactions one participant ends UNKNOWN
  std::vector<Fault> faults;  // crashes and joins, in the order given
  bool torn_tail = false;     // a crashed server's last record is cut short
  cut::InjectedBug bug = cut::InjectedBug::kNone;

  // Scenario controls (tests drive the protocol through these; not on the command line).
  std::vector<double> cut_at_us;         // start cuts at these simulated times instead
  bool constant_delays = false;          // every delay is exactly its mean (plus the minimum)
  int32_t fixed_near = -1;               // every transaction starts on this node index
  std::vector<uint32_t> fixed_accounts;  // every transaction touches exactly these accounts
};

}  // namespace sim
