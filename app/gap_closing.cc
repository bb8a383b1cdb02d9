#include "app/gap_closing.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "app/ignite_stores.h"
#include "libwal/in_order.h"
#include "libwal/wal_writer.h"

namespace app {

wal::Result<std::vector<recovery::NodeGaps>> ScanClusterGaps(const std::vector<WalInput>& inputs, bool cluster) {
  std::vector<wal::Result<recovery::NodeGaps>> scanned(inputs.size(), wal::Status::Internal("not read"));
  wal::OnThreads(inputs.size(), std::max(1u, std::thread::hardware_concurrency()), [&](size_t i) {
    recovery::GapScanOptions options;
    options.collect_committed = cluster;
    options.ignite = IsIgniteInput(inputs[i]);
    if (options.ignite) {
      options.group_of = IgniteSharedGroupsOf(inputs[i]);
      options.snapshot_lwms = IgniteSnapshotLwmsOf(inputs[i]);
    }
    scanned[i] = recovery::ScanGaps(inputs[i].node, inputs[i].wal_dir, options);
  });
  std::vector<recovery::NodeGaps> out;
  for (auto& g : scanned) {
    if (!g.ok()) return g.status();
    out.push_back(std::move(g).value());
  }
  if (cluster) recovery::MarkCommittedElsewhere(out);
  return out;
}

bool Closable(const recovery::CounterGap& g, bool cluster, bool finalize) {
  if (g.committed_elsewhere) return false;
  switch (g.fate) {
    case recovery::GapFate::kRolledBack: return true;
    case recovery::GapFate::kPrepared: return cluster || finalize;
    case recovery::GapFate::kNoOwner: return finalize;
    case recovery::GapFate::kUnknown:
    case recovery::GapFate::kCommitted: return false;
  }
  return false;
}

std::vector<wal::RollbackRecord> RollbacksFor(const recovery::NodeGaps& n, bool cluster, bool finalize) {
  std::vector<wal::RollbackRecord> records;
  for (const auto& c : n.copies) {
    for (const auto& g : c.gaps) {
      if (Closable(g, cluster, finalize)) records.push_back({c.cache, c.partition, g.first - 1, g.last - g.first + 1});
    }
  }
  return records;
}

wal::Result<std::vector<wal::Pointer>> AppendRollbacks(const recovery::NodeGaps& n,
                                                       const std::vector<wal::RollbackRecord>& records) {
  auto named = [&](const wal::Status& s) { return wal::Status(s.code(), fmt::format("{}: {}", n.node, s.message())); };
  wal::WriterOptions wo;
  wo.fsync = true;
  auto w = wal::WalWriter::OpenForAppend(n.wal_dir.dirs.front(), wo);
  if (!w.ok()) return named(w.status());
  std::vector<wal::Pointer> at;
  for (const auto& r : records) {
    auto p = (*w)->Append(r);
    if (!p.ok()) return named(p.status());
    at.push_back(*p);
  }
  wal::Status s = (*w)->Sync();
  if (s.ok()) s = (*w)->Close();
  if (!s.ok()) return named(s);
  return at;
}

}  // namespace app
