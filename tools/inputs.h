// Turning the PATH arguments of a command into node WAL streams: a segment file, a
// node's wal/ directory, a node directory, or a cluster directory (every server node,
// in node order).
#pragma once

#include <string>
#include <vector>

#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace tools {

struct WalInput {
  std::string node;                    // node name, or "-" when it cannot be known
  std::string wal_dir;                 // set for directories
  std::vector<wal::SegmentFile> files; // set for a single segment file
};

wal::Result<std::vector<WalInput>> ResolveWalInputs(const std::vector<std::string>& paths);

// Orders node names so that node-2 comes before node-10.
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace tools
