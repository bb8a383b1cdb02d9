// The binary encoding of node summaries (summary_file.h; walcut-format(5), NODE
// SUMMARIES). Internal to libcut: callers go through summary_file.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "libcut/summary_file.h"
#include "libcut/varint_codec.h"

namespace cut::binary_summary {

inline constexpr char kMagic[8] = {'W', 'C', 'S', 'U', 'M', 'M', 'R', 'Y'};
inline constexpr uint32_t kSchema = 2;
inline constexpr char kStateMagic[8] = {'W', 'C', 'R', 'E', 'S', 'U', 'M', 'E'};
inline constexpr uint32_t kStateSchema = 1;

bool LooksBinary(std::string_view bytes);
std::string Encode(const NodeIndex& index);
wal::Result<NodeIndex> Decode(std::string_view bytes, const std::string& origin);
// A node's base snapshots: U count, then S name, P at, U timestamp each.
void PutSnapshots(VarintWriter& o, const std::vector<BaseSnapshot>& v);
std::vector<BaseSnapshot> GetSnapshots(VarintReader& in);  // throws CodecError

// One cut as a length-prefixed field of its own (a cut frame's fields, with no previous
// cut to refer to), for state files; GetCut takes a cut still being built (no check that
// a Finish before a Start is reported).
void PutCut(VarintWriter& o, const CutOnNode& c);
CutOnNode GetCut(VarintReader& in);  // throws CodecError

// A resume-state file: its own magic and schema, then one checksummed frame of `raw`.
std::string EncodeStateFile(const std::string& raw);
wal::Result<std::string> DecodeStateFile(std::string_view bytes, const std::string& origin);

// Takes the open file `fd` of `size` bytes (closed by the stream).
wal::Result<std::unique_ptr<SummaryStream>> OpenFile(int fd, uint64_t size, const std::string& origin);

}  // namespace cut::binary_summary
