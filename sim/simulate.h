// The simulated cluster: server and client nodes exchanging the transaction protocol's
// messages through a discrete-event queue, each server writing its real WAL, each node
// running a CutManager. One seeded Rng drives everything: the same seed and options
// give the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcut/cut_manager.h"
#include "libwal/status.h"
#include "sim/config.h"

namespace sim {

struct NodeSummary {
  std::string name;
  uint64_t records = 0;
  uint64_t bytes = 0;
};

struct SimSummary {
  uint64_t txs_committed = 0;
  uint64_t txs_rolled_back = 0;
  uint64_t lock_timeouts = 0;
  uint64_t one_phase = 0;
  uint64_t two_phase = 0;
  uint64_t cuts_started = 0;
  uint64_t cuts_consistent = 0;
  uint64_t simulated_ns = 0;
  uint64_t crashes = 0;
  uint64_t joins = 0;
  uint64_t txs_recovered = 0;  // finished on some node by transaction recovery
  uint64_t gaps_closed = 0;    // by the exchange after a server left
  std::vector<NodeSummary> nodes;
  cut::CutStats classification;  // summed over server nodes
};

// Runs the whole simulation and writes the cluster directory.
wal::Result<SimSummary> Simulate(const SimConfig& config);

}  // namespace sim
