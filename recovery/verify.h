// Verify (like Ignite's idle_verify): every copy of each partition has the same counter
// and content hash, every data file its checksum, and, for a restored directory, every
// file is the one restore.json recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libwal/status.h"

namespace recovery {

struct Conflict {
  std::string kind;       // counter, content, checksum, missing-copy, manifest
  uint32_t cache = 0;
  uint32_t partition = 0;
  std::vector<std::string> nodes;
  std::string detail;
};

struct VerifyReport {
  uint64_t partitions = 0;
  uint64_t files = 0;
  bool restored = false;  // restore.json was found and checked
  std::vector<Conflict> conflicts;
};

// `dir`: a cluster or restored directory (cluster.json and NODE/data/).
wal::Result<VerifyReport> VerifyDirectory(const std::string& dir);

}  // namespace recovery
