// What changes between two cuts of one base on a node (`walcut diff`): the transactions
// whose first commit in the node's WAL lies on a different side of the two cuts, with the
// keys they wrote.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_set>

#include "libcut/cut_index.h"
#include "libcut/side.h"
#include "libwal/ids.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace app {

// A key written by a transaction: its cache and partition, and its bytes (Apache
// Ignite's: as text, the cache object as dump prints it without binary metadata).
struct Key {
  uint32_t cache = 0;
  uint32_t partition = 0;
  std::string bytes;
  auto operator<=>(const Key&) const = default;
};

// A transaction whose side differs between the two cuts.
struct Changed {
  cut::Side a = cut::Side::kAfter, b = cut::Side::kAfter;
  std::set<std::string> nodes;
  std::set<Key> keys;
};

// One cut's records and sets on a node.
struct CutOn {
  wal::Pointer start, finish;
  std::unordered_set<wal::TxId, wal::TxIdHash> before, after;
};

// Reads the node's WAL from its base snapshot's record to the later Finish record, and
// records each transaction whose first commit there is on a different side of the two
// cuts, with the keys it wrote (Apache Ignite's keys as dump prints them). kCorruption
// where the range is damaged.
wal::Status DiffNode(const cut::NodeIndex& n, const wal::WalLocation& wal_dir, const std::string& base, const CutOn& a,
                     const CutOn& b, std::map<wal::TxId, Changed>* out);

}  // namespace app
