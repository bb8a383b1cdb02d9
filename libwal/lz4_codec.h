// LZ4 frame format (lz4 --frame, the `lz4` tool's default) for sealed segments.
#pragma once

#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

Result<std::string> CompressLz4Frame(std::string_view input);

// Decompresses exactly one LZ4 frame. A damaged or truncated frame, trailing bytes
// after it, or output past `limit` bytes is kCorruption naming the compressed offset.
Result<std::string> DecompressLz4Frame(std::string_view input, size_t limit);

}  // namespace wal
