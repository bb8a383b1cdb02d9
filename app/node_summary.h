// `cuts NODE --summary FILE [--append]` (walcut-cuts(1)): one node's summary made from its
// WAL (with an Apache Ignite node's kept increments, read afresh each time), and written
// with its resume state. A resumed reading goes on from FILE.resume, reads only the WAL
// from the segment that was then the last, and gives FILE exactly as a whole reading would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/inputs.h"
#include "libcut/summary_file.h"
#include "libwal/status.h"

namespace app {

struct NodeSummary {
  cut::NodeIndex index;                   // the reading; its cuts are those this run read
  std::string bytes;                      // FILE's new content
  uint64_t cuts = 0;                      // in FILE
  uint64_t records_read = 0;              // by this run
  bool damaged = false;                   // a read error, no record, or a WAL that could not be opened
  std::optional<cut::ResumeState> state;  // FILE.resume's new content (--append)
  // --append: why FILE was written whole though a summary or state was there ("" otherwise).
  std::string whole_because;
};

// The whole reading of `in`'s WAL. A WAL that cannot be opened gives a summary of an
// unreadable node (index.open_error).
NodeSummary SummarizeNode(const WalInput& in, cut::SummaryFormat format);

// --append: goes on from `path`'s resume state where it fits, else reads the whole WAL.
// Fails only when the summary at `path` cannot be extended (its frames do not parse).
wal::Result<NodeSummary> AppendToSummary(const WalInput& in, const std::string& path, cut::SummaryFormat format);

// `path`, then, with a state, `path`.resume: each to a temporary, synced and renamed.
wal::Status WriteSummaryFiles(const std::string& path, const NodeSummary& summary);

}  // namespace app
