// `walcut restore`.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"
#include "tools/time_target.h"

namespace tools {

struct RestoreOptions {
  std::string dir;                     // the first directory given
  std::vector<std::string> more_dirs;  // Ignite: the others (a snapshot directory from each node)
  std::string out;
  std::optional<std::string> cut;
  std::optional<uint32_t> increment;
  bool latest = false;
  std::optional<TimeTarget> time;  // the latest consistent cut finished at or before it
  std::string snapshot;            // only the increments of this base snapshot
  std::vector<std::string> nodes;
  std::vector<std::string> cache_names;      // --cache as given: names or ids
  std::vector<uint32_t> caches, partitions;  // --cache (resolved), --partition: restore only these
  unsigned jobs = 0;                         // 0: one per core
  bool force = false;                        // keep output whose copies disagree, marked so
  bool dry_run = false;
  // Called once reading is done and writing starts: from then on SIGINT/SIGTERM set the
  // flag it returns (until then a signal ends the process, which has written nothing).
  std::function<const std::atomic<bool>*()> cancellable;
  bool json = false;
  bool quiet = false;
};

int RunRestore(const RestoreOptions& options, Output& output);

}  // namespace tools
