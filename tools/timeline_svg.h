// The SVG timeline of a cut (`walcut cuts DIR --svg FILE`): one lane per server node,
// each commit a tick coloured by its side of the cut, the Start and Finish records as
// markers, and a line joining one transaction's commits across nodes, drawn in a warning
// colour where they fall on different sides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcut/cluster_check.h"
#include "libwal/segment_file.h"

namespace tools {

struct TimelineOptions {
  bool axis_offset = false;    // x by WAL order instead of time
  std::optional<double> from;  // seconds
  std::optional<double> to;
};

wal::Result<std::string> RenderTimeline(const std::vector<cut::NodeIndex>& indexes,
                                        const std::vector<wal::WalLocation>& wal_dirs, const cut::CutReport& chosen,
                                        const TimelineOptions& options);

}  // namespace tools
