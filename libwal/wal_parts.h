// A WAL cut into parts that readers on several cores take at once (`dump` of one node):
// runs of segment files, between indexes, of about equal size on disk, and the node whose
// headers every later part is held to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "libwal/ids.h"
#include "libwal/segment_file.h"

namespace wal {

// The segment files at `location` cut, between indexes, into up to `parts` runs of about equal
// size on disk; none when there is nothing worth cutting (fewer than two indexes, less
// than `min_bytes`, or a listing that fails: the reader reports that).
std::vector<std::vector<SegmentFile>> CutIntoParts(const WalLocation& location, size_t parts, uint64_t min_bytes);

// The node whose headers a WAL's later parts are held to: that of the first part's first
// header. False when the first part is walcut's format and its header cannot be read
// whole and sound (one reader then reads the node).
bool FirstPartNode(const std::vector<SegmentFile>& first, std::optional<Uuid>* node);

}  // namespace wal
