// `walcut dump`: records of one or more node WALs as text lines, JSON Lines or a
// per-type statistics table.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/record_filter.h"
#include "libwal/ids.h"
#include "tools/output.h"
#include "tools/record_format.h"

namespace tools {

// The filters (types, tx, partition, caches resolved, key, cut, from) are the selection's.
struct DumpOptions : app::RecordSelection {
  std::vector<std::string> paths;
  bool json = false;
  bool quiet = false;
  bool stats = false;
  // What the --stats table is by: record type (the default), node, partition or cache.
  enum class StatsBy { kType, kNode, kPartition, kCache };
  StatsBy stats_by = StatsBy::kType;
  std::vector<std::string> cache_wanted;        // --cache as given: names or ids
  std::map<uint32_t, std::string> cache_names;  // names printed beside ids (RunDump finds them)
  std::optional<wal::Pointer> to;               // exclusive
  // Record times (nanoseconds), both inclusive; a record without a time of its own has
  // the time of the record before it in its WAL.
  std::optional<uint64_t> since, until;
  std::optional<uint64_t> limit;
  ValuesMode values = ValuesMode::kShow;
  bool follow = false;
  double follow_interval = 0.2;       // seconds between polls
  std::optional<double> follow_idle;  // stop after this long without new records
  bool verify = true;
  // `--stats` of one node whose segments take at least this many bytes: read in parts
  // side by side, one per core (tests lower it).
  uint64_t parts_min_bytes = uint64_t{64} << 20;
  // Set from outside (a signal handler) to end --follow.
  const std::atomic<bool>* stop = nullptr;
};

int RunDump(const DumpOptions& options, Output& output);

}  // namespace tools
