#include "app/summary_check.h"

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "libcut/json_doc.h"
#include "libcut/summary_file.h"
#include "libwal/file_io.h"

namespace app {

wal::Result<cut::ClusterReport> CheckSummaries(const std::vector<std::string>& files, const cut::ClusterInfo* cluster) {
  // Every file stays open while the check goes: allow as many as the system lets us.
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
#if defined(__GLIBC__)
  // Each file's cuts are decoded into vectors of a few hundred KiB, freed once the cut is
  // checked, cut after cut: above glibc's mmap threshold every one would be a new mapping,
  // faulted in page by page (about a tenth of the time at 32 files). They stay in the heap.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  std::vector<std::unique_ptr<cut::CutFeed>> feeds;
  std::vector<std::shared_ptr<wal::Status>> damage;
  std::vector<std::pair<std::string, uint16_t>> seen;  // node, order
  // Apache Ignite's kept increments, as check has them (app::KeptIncrementsOf).
  std::vector<cut::NodeKept> kept;
  std::vector<std::pair<std::string, std::string>> earlier;  // node, file: of a schema without them
  for (const auto& f : files) {
    auto stream = cut::SummaryStream::Open(f);
    if (!stream.ok()) return stream.status();
    const cut::NodeIndex& node = (*stream)->node();
    for (const auto& [name, order] : seen) {
      if (name == node.node) {
        return wal::Status::AlreadyExists(fmt::format("two summaries of node \"{}\" (\"{}\")", node.node, f));
      }
      // (Order 0: none known, as on Apache Ignite's WAL, which names no node order.)
      if (order == node.order && order != 0) {
        return wal::Status::Corruption(
            fmt::format("\"{}\": node {} has order {}, as node {} has", f, node.node, node.order, name));
      }
    }
    seen.emplace_back(node.node, node.order);
    if ((*stream)->kept()) {
      kept.push_back(*(*stream)->kept());
    } else if (!(*stream)->carries_ignite_parts()) {
      earlier.emplace_back(node.node, f);
    }
    damage.push_back(std::make_shared<wal::Status>());
    feeds.push_back(cut::SummaryFeed(std::move(stream).value(), damage.back()));
  }
  // A summary of an earlier version (beside nodes with metadata): whether its node keeps
  // the increments is not known (its metadata unreadable), not that it was not given.
  for (const auto& [node, file] : earlier) {
    kept.push_back({node,
                    {},
                    {fmt::format("\"{}\": a summary of an earlier walcut, without the node's increments' "
                                 "metadata (write it again)",
                                 file)},
                    {},
                    {},
                    false});
  }
  // As many decoding threads as cores, not one per file: the files are decoded in turn,
  // in the order the check takes their cuts.
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const auto taken = cut::KeptWhenAnyHasMetadata(std::move(kept));
  cut::ClusterReport report =
      cut::CheckClusterStreaming(cut::AheadFeeds(std::move(feeds), threads), cluster, taken ? &*taken : nullptr).report;
  for (const auto& d : damage) {
    if (!d->ok()) return *d;
  }
  return report;
}

wal::Result<cut::ClusterInfo> ReadClusterFile(const std::string& path) {
  auto text = wal::ReadFileToString(path, cut::kMaxSideFileBytes);
  if (!text.ok()) return text.status();
  return cut::ParseClusterFile(*text, path);
}

}  // namespace app
