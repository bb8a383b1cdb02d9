#include "app/cut_info.h"

#include <sys/stat.h>

#include <algorithm>

#include <fmt/format.h>

#include "libwal/segment_file.h"

namespace app {
namespace {

IgniteNeeds IgniteRestoreNeeds(const SnapshotHoldings& h, uint32_t index) {
  IgniteNeeds r;
  for (const auto& m : h.missing)
    r.lacking.push_back(fmt::format("{}'s files (not given, or without the snapshot)", m));
  for (uint32_t i = 1; i <= index; ++i) {
    auto k = std::find_if(h.increments.begin(), h.increments.end(),
                          [&](const IncrementHoldings& x) { return x.index == i; });
    for (const auto& node : h.nodes) {
      const bool meta =
          k != h.increments.end() && std::find(k->with_meta.begin(), k->with_meta.end(), node) != k->with_meta.end();
      const bool wal =
          k != h.increments.end() && std::find(k->with_wal.begin(), k->with_wal.end(), node) != k->with_wal.end();
      if (!meta)
        r.lacking.push_back(fmt::format("increment {}'s metadata on {}", i, node));
      else if (!wal)
        r.lacking.push_back(fmt::format("increment {}'s WAL on {}", i, node));
    }
  }
  r.ok = r.lacking.empty();
  return r;
}

// The segments of a cut's increment: from where each node's range begins (the previous
// consistent cut's Finish record of the same base, or the base snapshot's record) to the
// last Finish record.
void RangeOf(const cut::ClusterReport& report, const std::vector<cut::NodeIndex>& indexes, size_t i, CutLine* line) {
  const cut::CutReport& c = report.cuts[i];
  const cut::CutReport* prev = nullptr;
  for (size_t k = i; k-- > 0;) {
    const auto& p = report.cuts[k];
    if (p.status == cut::CutStatus::kConsistent && p.base == c.base) {
      prev = &p;
      break;
    }
  }
  bool any = false;
  for (const auto& row : c.nodes) {
    if (!row.has_finish) continue;
    std::optional<uint64_t> from;
    if (prev != nullptr) {
      for (const auto& r : prev->nodes) {
        if (r.node == row.node && r.has_finish) from = r.finish.segment;
      }
    } else {
      for (const auto& idx : indexes) {
        if (idx.node != row.node) continue;
        for (const auto& s : idx.snapshots) {
          if (s.name == c.base && s.at < row.finish) from = s.at.segment;
        }
      }
    }
    const uint64_t first = from.value_or(row.has_start ? row.start.segment : row.finish.segment);
    line->first_segment = any ? std::min(line->first_segment, first) : first;
    line->last_segment = any ? std::max(line->last_segment, row.finish.segment) : row.finish.segment;
    any = true;
  }
  line->has_range = any;
}

}  // namespace

std::vector<NodeWal> WalSizes(const WalInputs& inputs) {
  std::vector<NodeWal> out;
  for (const auto& in : inputs.nodes) {
    NodeWal n;
    n.node = in.node;
    std::vector<wal::SegmentFile> files = in.files;
    if (!in.wal_dir.empty()) {
      auto listed = wal::ListSegments(in.wal_dir);
      if (listed.ok()) files = std::move(listed).value();
    }
    for (const auto& f : files) {
      struct stat st {};
      if (::stat(f.path.c_str(), &st) == 0) n.bytes += static_cast<uint64_t>(st.st_size);
      ++n.files;
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<CutGroup> GroupedByBase(const cut::ClusterReport& report, const std::vector<cut::NodeIndex>& indexes,
                                    const std::vector<SnapshotHoldings>& holdings, bool ignite) {
  std::vector<CutGroup> groups;
  auto group = [&](const std::string& base) -> CutGroup& {
    for (auto& g : groups) {
      if (g.base == base) return g;
    }
    CutGroup g;
    g.base = base;
    for (const auto& h : holdings) {
      if (!base.empty() && h.name == base) g.holdings = &h;
    }
    groups.push_back(std::move(g));
    return groups.back();
  };
  for (const auto& h : holdings) group(h.name);
  for (const auto& idx : indexes) {
    for (const auto& s : idx.snapshots) group(s.name);
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    CutLine line;
    line.cut = i;
    RangeOf(report, indexes, i, &line);
    CutGroup& g = group(c.base);
    if (ignite && g.holdings != nullptr && c.increment) line.ignite = IgniteRestoreNeeds(*g.holdings, *c.increment);
    g.cuts.push_back(std::move(line));
  }
  for (auto& g : groups) {
    if (g.holdings == nullptr) continue;
    for (const auto& k : g.holdings->increments) {
      bool seen = false;
      for (const auto& line : g.cuts) seen |= report.cuts[line.cut].id.ToString() == k.request_id;
      if (!seen) g.unseen.push_back(&k);
    }
  }
  // A group of no base last (cuts before any base snapshot, or whose base is unknown).
  std::stable_partition(groups.begin(), groups.end(), [](const CutGroup& g) { return !g.base.empty(); });
  groups.erase(
      std::remove_if(groups.begin(), groups.end(), [](const CutGroup& g) { return g.base.empty() && g.cuts.empty(); }),
      groups.end());
  return groups;
}

uint64_t BaseTime(const std::vector<cut::NodeIndex>& indexes, const CutGroup& g) {
  if (g.holdings != nullptr && g.holdings->time_ms != 0) return g.holdings->time_ms * 1'000'000;
  uint64_t t = 0;
  for (const auto& idx : indexes) {
    for (const auto& s : idx.snapshots) {
      if (s.name == g.base) t = std::max(t, s.timestamp);
    }
  }
  return t;
}

std::vector<std::string> NodesWithRecord(const std::vector<cut::NodeIndex>& indexes, const std::string& base) {
  std::vector<std::string> out;
  for (const auto& idx : indexes) {
    for (const auto& s : idx.snapshots) {
      if (s.name == base) {
        out.push_back(idx.node);
        break;
      }
    }
  }
  return out;
}

}  // namespace app
