// Finding partition data files: a cluster or restored directory (every server node's
// data/), a node directory (its data/), or a directory of part-*.dat files itself.
#pragma once

#include <string>
#include <vector>

#include "libwal/status.h"

namespace tools {

struct DataDir {
  std::string node;                // node name ("-" for a bare directory)
  std::string dir;                 // the directory holding part-*.dat
  std::vector<std::string> files;  // sorted by (cache, partition)
};

wal::Result<std::vector<DataDir>> ResolveDataDirs(const std::string& path);

}  // namespace tools
