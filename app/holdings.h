// What a cluster's directories hold to restore from, found from the files and their
// metadata alone (no WAL is read): each base snapshot of walcut's nodes, or each full
// snapshot of Apache Ignite's with its increments, and on which nodes (`walcut info`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/inputs.h"

namespace app {

struct IncrementHoldings {  // an Ignite increment of a full snapshot
  uint32_t index = 0;
  std::string request_id;  // its cut's id, by the first node's metadata
  uint64_t time_ms = 0;
  std::vector<std::string> with_meta;  // nodes with its increments/<index>/<folder>.smf
  std::vector<std::string> with_wal;   // nodes with segments in its increments/<index>/db/wal/<folder>/
  uint64_t wal_bytes = 0;              // of those segments
};

struct SnapshotHoldings {
  std::string name;
  uint64_t time_ms = 0;              // Ignite's metadata's; 0 for walcut's (the WAL record has it)
  std::vector<std::string> nodes;    // the nodes that hold its files
  std::vector<std::string> missing;  // the nodes it needs (Ignite: its baseline; walcut: the inputs) without them
  uint64_t bytes = 0, files = 0;     // its files on those nodes (Ignite: the page files)
  std::vector<IncrementHoldings> increments;
};

// The snapshots of the nodes of `inputs`, by name (walcut: <node>/snapshots/<name>/;
// Ignite: each node's snapshots/<name>/ or the snapshot directory given, with its .smf).
std::vector<SnapshotHoldings> HoldingsOf(const WalInputs& inputs);

}  // namespace app
