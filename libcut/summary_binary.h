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
// 3: the node frame ends with the kept increments' block (Apache Ignite's metadata), and
// each cut frame with its applied counters. 2 is read (neither then).
inline constexpr uint32_t kSchema = 3;
inline constexpr uint32_t kFirstSchema = 2;
inline constexpr char kStateMagic[8] = {'W', 'C', 'R', 'E', 'S', 'U', 'M', 'E'};
// 2: the reading's state holds Apache Ignite's commit places (commit_place.h); 3: each
// pending transaction's first entry too, and each open cut's transactions committed
// across its Start record (torn-transaction); 4: Apache Ignite's update counters since the
// full snapshot's record (copy_counters.h), and each open cut's applied counters. A state
// of an older schema is not resumed (the summary is written whole).
inline constexpr uint32_t kStateSchema = 4;

bool LooksBinary(std::string_view bytes);
// `kept`: the node's kept increments (Apache Ignite's), null for none.
std::string Encode(const NodeIndex& index, const NodeKept* kept);
// The latest Start timestamp among `cuts` (0 when none has a Start).
uint64_t LastStartTs(const std::vector<CutOnNode>& cuts);
// A file whose first `kept` cuts are the cut frames `frames` (copied from an earlier
// file, not encoded again; the latest Start among them `kept_last_start`, the last of them
// `last_kept`, which the next cut's frame may refer to), then the cuts of `index`.
std::string EncodeAfter(const NodeIndex& index, std::string_view frames, uint64_t kept, uint64_t kept_last_start,
                        const CutOnNode* last_kept, const NodeKept* metadata);
// The bytes of the first `count` cut frames of the binary summary `file` (frames walked by
// their headers, not read).
wal::Result<std::string_view> CutFrames(std::string_view file, uint64_t count, const std::string& origin);
wal::Result<NodeIndex> Decode(std::string_view bytes, const std::string& origin, std::optional<NodeKept>* kept,
                              bool* parts);
// A node's base snapshots: U count, then S name, P at, U timestamp each.
void PutSnapshots(VarintWriter& o, const std::vector<BaseSnapshot>& v);
std::vector<BaseSnapshot> GetSnapshots(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

// One cut as a length-prefixed field of its own (a cut frame's fields, with no previous
// cut to refer to), for state files; GetCut takes a cut still being built (no check that
// a Finish before a Start is reported).
void PutCut(VarintWriter& o, const CutOnNode& c);
CutOnNode GetCut(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

// A resume-state file: its own magic and schema, then one checksummed frame of `raw`.
std::string EncodeStateFile(const std::string& raw);
wal::Result<std::string> DecodeStateFile(std::string_view bytes, const std::string& origin);

// Takes the open file `fd` of `size` bytes (closed by the stream).
wal::Result<std::unique_ptr<SummaryStream>> OpenFile(int fd, uint64_t size, const std::string& origin);

}  // namespace cut::binary_summary
