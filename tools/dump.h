// `walcut dump`: records of one or more node WALs as text lines, JSON Lines or a
// per-type statistics table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/dump_reading.h"
#include "tools/output.h"
#include "tools/record_format.h"

namespace tools {

// The reading's choices are app::DumpReading's; these are the command's own.
struct DumpOptions : app::DumpReading {
  using StatsBy = app::StatsBy;
  std::vector<std::string> paths;
  bool json = false;
  std::vector<std::string> cache_wanted;        // --cache as given: names or ids
  std::map<uint32_t, std::string> cache_names;  // names printed beside ids (RunDump finds them)
  ValuesMode values = ValuesMode::kShow;
};

int RunDump(const DumpOptions& options, Output& output);

}  // namespace tools
