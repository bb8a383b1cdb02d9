// The binary encoding of node summaries (summary_file.h; walcut-format(5), NODE
// SUMMARIES). Internal to libcut: callers go through summary_file.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "libcut/summary_file.h"

namespace cut::binary_summary {

inline constexpr char kMagic[8] = {'W', 'C', 'S', 'U', 'M', 'M', 'R', 'Y'};
inline constexpr uint32_t kSchema = 2;

bool LooksBinary(std::string_view bytes);
std::string Encode(const NodeIndex& index);
wal::Result<NodeIndex> Decode(std::string_view bytes, const std::string& origin);
// Takes the open file `fd` of `size` bytes (closed by the stream).
wal::Result<std::unique_ptr<SummaryStream>> OpenFile(int fd, uint64_t size, const std::string& origin);

}  // namespace cut::binary_summary
