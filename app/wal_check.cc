#include "app/wal_check.h"

#include <memory>
#include <vector>

#include "libcut/kept_increments.h"

namespace app {

cut::StreamedCluster CheckWal(WalInputs* inputs, const WalCheckOptions& how, const ReadingPass& pass) {
  auto increment = how.increment;
  if (!increment && how.increment_of_cut) increment = IncrementOfCut(inputs->nodes, *how.increment_of_cut);
  if (increment) BoundToIncrement(&inputs->nodes, increment->first, increment->second);
  const auto kept = KeptIncrementsOf(inputs->nodes);
  // Read to the Finish record first only when every node stops at the same cut's.
  std::optional<wal::Uuid> cut;
  for (const auto& in : inputs->nodes) {
    if (in.stop_after && (!cut || *cut == *in.stop_after)) {
      cut = in.stop_after;
    } else {
      cut.reset();
      break;
    }
  }
  cut::StreamedCluster out;
  auto check = [&](bool stop) {
    std::vector<std::unique_ptr<cut::CutFeed>> feeds;
    for (size_t i = 0; i < inputs->nodes.size(); ++i) {
      const WalInput& in = inputs->nodes[i];
      auto feed =
          cut::WalFeed(in.node, in.wal_dir, how.tap ? how.tap(i, in) : nullptr, stop ? in.stop_after : std::nullopt);
      feeds.push_back(feed.ok() ? std::move(feed).value() : cut::UnreadableFeed(in.node, feed.status().message()));
    }
    // Not a thread per node: each reading thread takes the next node with room ahead of the
    // check (as fast, with less memory: fewer stacks and heap arenas).
    feeds = cut::AheadFeeds(std::move(feeds), how.threads);
    pass(!stop && cut.has_value(), [&] {
      out = cut::CheckClusterStreaming(std::move(feeds), inputs->cluster ? &*inputs->cluster : nullptr,
                                       kept ? &*kept : nullptr, how.keep_sets);
    });
  };
  check(cut.has_value());
  if (cut && !cut::StopsEarly(out, *cut)) check(false);
  return out;
}

}  // namespace app
