// A node's cuts handed to the cluster check one at a time, whatever they are read from:
// a WAL read as they are asked for, an index already built (a WAL read whole, or a
// summary file), or nothing (a node whose WAL cannot be opened).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcut/cut_index.h"

namespace cut {

// One node's cuts, in the order of its WAL, for the cluster check (cluster_check.h).
class CutFeed {
 public:
  virtual ~CutFeed() = default;
  // The next cut of this node; false at the end.
  virtual bool Next(CutOnNode* out) = 0;
  // What the node's reading has found so far, without cuts (see NodeIndexStream); final
  // once Next() returned false.
  virtual NodeIndex Progress() = 0;
  virtual std::vector<BaseSnapshot> Snapshots() = 0;  // Progress().snapshots, cheaper
  virtual uint64_t LastStartTs() = 0;
};

// A feed over an index already built (a WAL read whole, or a summary file).
std::unique_ptr<CutFeed> IndexFeed(const NodeIndex& index);
// The feed of a node whose WAL cannot be opened: no cut, and `why` as its open_error.
std::unique_ptr<CutFeed> UnreadableFeed(const std::string& node, const std::string& why);
// The feeds `inner` pulled by `threads` threads shared among them, each feed a few cuts
// ahead of its consumer, the feeds served in turn (for more feeds than cores, such as a
// cluster's WALs or summary files: fewer threads than feeds, their memory reused).
std::vector<std::unique_ptr<CutFeed>> AheadFeeds(std::vector<std::unique_ptr<CutFeed>> inner, size_t threads);
// A feed reading `wal_dir` as its cuts are asked for, on the asking thread (AheadFeeds
// reads feeds ahead of the consumer on a few threads); `tap` sees every record, in order.
// `stop`: the reading ends early past that cut's Finish record (NodeIndexStream::Open).
wal::Result<std::unique_ptr<CutFeed>> WalFeed(const std::string& node, const wal::WalLocation& wal_dir,
                                              RecordTap tap = nullptr, std::optional<wal::Uuid> stop = std::nullopt);

}  // namespace cut
