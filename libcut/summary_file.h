// A node's cut index as a compact file, written on the node (`walcut cuts NODE_DIR
// --summary FILE`) and checked elsewhere (`walcut check --summaries FILE...`), so a
// large cluster is checked without gathering its WALs. JSON, schema 1.
#pragma once

#include <cstdint>
#include <string>

#include "libcut/cut_index.h"

namespace cut {

// The largest summary file read (a node's summary is a few percent of its WAL).
inline constexpr uint64_t kMaxSummaryBytes = 1ull << 30;

std::string EncodeSummary(const NodeIndex& index);
wal::Result<NodeIndex> DecodeSummary(const std::string& text, const std::string& origin);

}  // namespace cut
