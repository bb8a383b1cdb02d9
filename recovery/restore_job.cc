#include "recovery/restore_job.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <xxhash.h>

#include "libcut/json_doc.h"
#include "libwal/file_io.h"
#include "libwal/staged_output.h"
#include "recovery/partition_file.h"

namespace recovery {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kDisagreement = "the restored copies do not agree";

bool Cancelled(const RestoreJob& job) { return job.cancel != nullptr && job.cancel->load(); }

// Writes one restored node's partition files into STAGE/NODE/data and records them in
// `entry`.
wal::Status WriteNode(const std::string& stage, NodeResult& r, ManifestNode* entry) {
  const std::string node_dir = stage + "/" + r.node;
  const std::string data = node_dir + "/data";
  std::error_code ec;
  fs::create_directories(data, ec);
  if (ec) return wal::Status::IoError(fmt::format("cannot create \"{}\": {}", data, ec.message()));
  entry->node = r.node;
  entry->read_from = r.read_from;
  entry->read_to = r.read_to;
  entry->txs_applied = r.txs_applied;
  entry->txs_skipped = r.txs_skipped;
  entry->entries = r.entries;
  entry->rollbacks_applied = r.rollbacks_applied;
  entry->gaps_closed = r.gaps_closed;
  for (const auto& pf : r.partitions) {
    const std::string name = PartitionFileName(pf.cache_id, pf.partition);
    const std::string bytes = EncodePartitionFile(pf);
    WAL_RETURN_IF_ERROR(wal::WriteNewFile(fmt::format("{}/{}", data, name), bytes));  // synced with the rest
    entry->files.push_back({name, FileChecksum(bytes), pf.lwm, ContentHash(pf)});
  }
  return wal::Status::Ok();
}

// Restores every node of the plan into the stage, `jobs` at a time; each node's data is
// written and dropped as soon as it is restored.
wal::Status RestoreNodes(const RestorePlan& plan, const RestoreJob& job, const std::string& stage,
                         RestoreOutcome* out) {
  const size_t n = plan.nodes.size();
  out->manifest.nodes.resize(n);
  out->partitions.assign(n, 0);
  std::vector<wal::Status> status(n);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(job.jobs != 0 ? job.jobs : cores, n);
  std::atomic<size_t> next{0};
  std::mutex warnings_mu;
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) {
        if (Cancelled(job)) {
          status[i] = wal::Status::Cancelled("restore interrupted");
          continue;
        }
        auto r = RestoreNode(plan.nodes[i], job.progress);
        if (!r.ok()) {
          status[i] = r.status();
          continue;
        }
        out->partitions[i] = r->partitions.size();
        {
          std::lock_guard<std::mutex> lock(warnings_mu);
          for (auto& line : r->warnings) out->warnings.push_back(std::move(line));
        }
        status[i] = WriteNode(stage, *r, &out->manifest.nodes[i]);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < n; ++i) {
    if (!status[i].ok()) {
      return wal::Status(status[i].code(),
                         fmt::format("restore of {} failed: {}", plan.nodes[i].node, status[i].message()));
    }
  }
  return Cancelled(job) ? wal::Status::Cancelled("restore interrupted") : wal::Status::Ok();
}

std::string ConflictLine(const Conflict& c) {
  std::string nodes;
  for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  return fmt::format("{} cache {} partition {} [{}]: {}", ConflictKindName(c.kind), c.cache, c.partition, nodes,
                     c.detail);
}

// Copies the .bin files of `dirs` into STAGE/binary_meta; of a name in several, the last
// directory's (as dump reads them: a later increment's metadata replaces an earlier one's).
// A file that cannot be read is left out and named in `warnings`.
wal::Status CopyBinaryMeta(const std::vector<std::string>& dirs, const std::string& stage,
                           std::vector<std::string>* warnings) {
  constexpr uint64_t kMaxBinFile = 16 << 20;  // a type's metadata takes a few KiB
  const std::string to = stage + "/binary_meta";
  std::set<std::string> copied;
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) {
    const std::string& dir = *d;
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".bin" && entry.is_regular_file(ec)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string name = f.filename().string();
      if (copied.count(name) != 0) continue;
      auto bytes = wal::ReadFileToString(f.string(), kMaxBinFile);
      if (!bytes.ok()) {
        warnings->push_back(fmt::format("binary metadata not copied: {}", bytes.status().message()));
        continue;
      }
      if (copied.empty()) {
        fs::create_directories(to, ec);
        if (ec) return wal::Status::IoError(fmt::format("cannot create \"{}\": {}", to, ec.message()));
      }
      WAL_RETURN_IF_ERROR(wal::WriteNewFile(fmt::format("{}/{}", to, name), *bytes));
      copied.insert(name);
    }
  }
  return wal::Status::Ok();
}

// Writes the side files, verifies the output as `walcut verify` would and, unless
// forced, refuses it when anything is wrong.
wal::Status Seal(const RestorePlan& plan, const cut::ClusterInfo& cluster, const RestoreJob& job,
                 const std::string& stage, RestoreOutcome* out) {
  RestoreManifest& m = out->manifest;
  m.ignite = std::any_of(plan.nodes.begin(), plan.nodes.end(), [](const NodePlan& n) { return n.ignite; });
  if (m.ignite) WAL_RETURN_IF_ERROR(CopyBinaryMeta(job.binary_meta_dirs, stage, &out->warnings));
  m.cut = plan.cut;
  m.increment = plan.increment;
  m.base = plan.base;
  m.topology_version = plan.topology_version;
  m.finish_ts = plan.finish_ts;
  m.only_nodes = job.only_nodes;
  m.only_caches = job.only_caches;
  m.only_partitions = job.only_partitions;
  WAL_RETURN_IF_ERROR(wal::WriteNewFile(stage + "/" + cut::kClusterFileName, cut::EncodeClusterFile(cluster)));
  const std::string manifest_path = stage + "/" + kManifestFileName;
  WAL_RETURN_IF_ERROR(wal::WriteNewFile(manifest_path, EncodeManifest(m)));
  auto report = VerifyStaged(stage);
  if (!report.ok()) return report.status();
  for (const auto& c : report->atomic_differences) {
    const auto named = job.cache_names.find(c.cache);
    std::string nodes;
    for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
    out->warnings.push_back(fmt::format(
        "ATOMIC cache {} ({}) partition {} [{}]: the copies differ ({}), as Ignite's own restore leaves them: an "
        "ATOMIC cache has no consistency across a cut",
        named != job.cache_names.end() ? named->second : "?", static_cast<int32_t>(c.cache), c.partition, nodes,
        c.detail));
  }
  if (report->conflicts.empty()) return wal::Status::Ok();
  std::vector<std::string> lines;
  for (const auto& c : report->conflicts) lines.push_back(ConflictLine(c));
  if (!job.force) {
    std::string shown;
    for (size_t i = 0; i < lines.size() && i < 5; ++i) shown += (i ? "; " : "") + lines[i];
    if (lines.size() > 5) shown += fmt::format("; and {} more", lines.size() - 5);
    return wal::Status::Corruption(fmt::format("{} ({} conflict(s)): {}", kDisagreement, lines.size(), shown));
  }
  out->conflicts = report->conflicts;
  m.forced = true;
  m.conflicts = std::move(lines);
  return wal::WriteFileAtomically(manifest_path, EncodeManifest(m), /*sync=*/false);  // synced with the rest
}

}  // namespace

uint64_t EstimateReplayBytes(const RestorePlan& plan) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& n : plan.nodes) {
    auto files = wal::ListSegments(n.wal);
    if (!files.ok()) continue;
    for (const auto& f : *files) {
      if (f.index < n.from.segment || f.index > n.finish.segment) continue;
      uint64_t size = fs::file_size(f.path, ec);
      if (ec) continue;
      if (f.index == n.finish.segment) size = std::min<uint64_t>(size, n.finish.offset);
      if (f.index == n.from.segment) size -= std::min<uint64_t>(size, n.from.offset);
      total += size;
    }
  }
  return total;
}

bool IsDisagreement(const wal::Status& s) {
  return s.code() == wal::StatusCode::kCorruption && s.message().rfind(kDisagreement, 0) == 0;
}

cut::ClusterInfo DeriveIgniteCluster(const RestorePlan& plan, const RestoreManifest& manifest, const RestoreJob& job) {
  cut::ClusterInfo info;
  cut::TopologyInfo version;
  std::map<uint32_t, std::map<uint32_t, std::vector<std::string>>> holders;  // cache -> partition -> nodes
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    cut::ClusterNode n;
    n.name = plan.nodes[i].node;
    const XXH128_hash_t h = XXH3_128bits(n.name.data(), n.name.size());
    n.id.hi = (h.high64 & ~0xf000ULL) | 0x8000ULL;  // version 8: derived, not random
    n.id.lo = (h.low64 & ~(3ULL << 62)) | (2ULL << 62);
    n.order = static_cast<uint16_t>(std::min<size_t>(i + 1, 65535));
    version.servers.push_back(n.name);
    info.nodes.push_back(std::move(n));
  }
  for (const auto& node : manifest.nodes) {
    for (const auto& f : node.files) {
      uint32_t c = 0, p = 0;
      if (ParsePartitionFileName(f.file, &c, &p)) holders[c][p].push_back(node.node);
    }
  }
  uint32_t widest = 1;
  for (const auto& [id, parts] : holders) {
    cut::CacheInfo c;
    c.id = id;
    const auto named = job.cache_names.find(id);
    c.name = named != job.cache_names.end() ? named->second : fmt::format("cache-{}", id);
    c.atomic = job.atomic_caches.count(id) != 0;
    c.partitions = parts.rbegin()->first + 1;
    c.assignment.resize(c.partitions);
    size_t most = 1;
    for (const auto& [p, nodes] : parts) {
      c.assignment[p] = nodes;
      most = std::max(most, nodes.size());
    }
    c.backups = static_cast<uint32_t>(most - 1);
    widest = std::max(widest, c.partitions);
    info.caches.push_back(std::move(c));
  }
  if (info.caches.empty()) info.caches.push_back({0, "none", 1, 0, false, {}});  // nothing was written
  version.assignment.resize(widest);
  for (const auto& c : info.caches) {
    for (uint32_t p = 0; p < c.assignment.size(); ++p) {
      for (const auto& n : c.assignment[p]) {
        auto& row = version.assignment[p];
        if (std::find(row.begin(), row.end(), n) == row.end()) row.push_back(n);
      }
    }
  }
  info.versions.push_back(std::move(version));
  return info;
}

wal::Result<RestoreOutcome> WriteRestore(const RestorePlan& plan, const cut::ClusterInfo* cluster,
                                         const RestoreJob& job) {
  // Every path written is OUT/<node>/data/<partition file>: each node name must be one
  // path component, or a name such as "../x" would write outside OUT.
  for (const auto& n : plan.nodes) {
    if (!cut::IsSafeName(n.node)) {
      return wal::Status::InvalidArgument(fmt::format("\"{}\" cannot be a node's directory name", n.node));
    }
  }
  auto staged = wal::StagedOutput::Begin(job.out);
  if (!staged.ok()) return staged.status();
  RestoreOutcome out;
  wal::Status s = RestoreNodes(plan, job, staged->dir(), &out);
  if (s.ok()) {
    s = Seal(plan, cluster != nullptr ? *cluster : DeriveIgniteCluster(plan, out.manifest, job), job, staged->dir(),
             &out);
  }
  if (s.ok() && Cancelled(job)) s = wal::Status::Cancelled("restore interrupted");
  // Every file and folder written is made durable at once, then published.
  if (s.ok()) s = staged->SyncAll();
  if (s.ok()) s = staged->Publish();
  if (!s.ok()) return s;  // what was written goes with `staged`
  return out;
}

}  // namespace recovery
