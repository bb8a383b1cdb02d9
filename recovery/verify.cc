#include "recovery/verify.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "libcut/cluster_file.h"
#include "libwal/file_io.h"
#include "libwal/staged_output.h"
#include "recovery/manifest_file.h"
#include "recovery/partition_file.h"

namespace recovery {

const char* ConflictKindName(ConflictKind kind) {
  switch (kind) {
    case ConflictKind::kCounter: return "counter";
    case ConflictKind::kContent: return "content";
    case ConflictKind::kChecksum: return "checksum";
    case ConflictKind::kMissingCopy: return "missing-copy";
    case ConflictKind::kUnexpectedCopy: return "unexpected-copy";
    case ConflictKind::kManifest: return "manifest";
    case ConflictKind::kForced: return "forced";
    case ConflictKind::kDamaged: return "damaged";
    case ConflictKind::kNotRead: return "not-read";
    case ConflictKind::kState: return "state";
    case ConflictKind::kSize: return "size";
  }
  return "?";
}
namespace fs = std::filesystem;

void CompareCopies(uint32_t cache, uint32_t partition, const std::vector<CopyInfo>& list, std::vector<Conflict>* out) {
  for (size_t i = 1; i < list.size(); ++i) {
    const CopyInfo& a = list[0];
    const CopyInfo& b = list[i];
    if (a.lwm != b.lwm || a.hwm != b.hwm) {
      out->push_back({ConflictKind::kCounter,
                      cache,
                      partition,
                      {a.node, b.node},
                      fmt::format("counter {} (lwm {}, hwm {}) on {}, {} (lwm {}, hwm {}) on {}", a.lwm, a.lwm, a.hwm,
                                  a.node, b.lwm, b.lwm, b.hwm, b.node)});
    }
    if (a.hash != b.hash) {
      out->push_back({ConflictKind::kContent,
                      cache,
                      partition,
                      {a.node, b.node},
                      fmt::format("content hash 0x{:016x} ({} entries) on {}, 0x{:016x} ({} entries) on {}", a.hash,
                                  a.entries, a.node, b.hash, b.entries, b.node)});
    }
  }
  for (const auto& ci : list) {
    if (ci.lwm != ci.hwm) {
      out->push_back({ConflictKind::kCounter,
                      cache,
                      partition,
                      {ci.node},
                      fmt::format("open gaps on {}: lwm {} below hwm {}", ci.node, ci.lwm, ci.hwm)});
    }
  }
}

namespace {

using CopyKey = std::pair<uint32_t, uint32_t>;  // cache, partition

// The servers that should hold copies and, per (cache, partition), which of them: the
// assignment of one topology version, for every cache of the cluster file.
struct Expected {
  std::vector<std::string> nodes;
  std::map<CopyKey, std::vector<std::string>> holders;
};

bool Wanted(const std::vector<uint32_t>& caches, uint32_t cache) {
  return caches.empty() || std::find(caches.begin(), caches.end(), cache) != caches.end();
}

Expected ExpectedCopies(const cut::ClusterInfo& cluster, const cut::TopologyInfo& version,
                        const std::vector<std::string>& only, const RestoreManifest* subset,
                        const std::vector<uint32_t>& caches) {
  Expected e;
  for (const auto& s : version.servers) {
    if (only.empty() || std::find(only.begin(), only.end(), s) != only.end()) e.nodes.push_back(s);
  }
  for (const auto& c : cluster.caches) {
    if (!Wanted(caches, c.id)) continue;
    const auto& assignment = c.assignment.empty() ? version.assignment : c.assignment;
    for (uint32_t p = 0; p < c.partitions && p < assignment.size(); ++p) {
      if (subset != nullptr && !subset->Selected(c.id, p)) continue;  // restored with --cache/--partition
      auto& h = e.holders[{c.id, p}];
      for (const auto& n : assignment[p]) {
        if (std::find(e.nodes.begin(), e.nodes.end(), n) != e.nodes.end()) h.push_back(n);
      }
    }
  }
  return e;
}

std::atomic<uint64_t> files_verified{0};  // PartitionFilesVerified()

// Reads the partition files of one node's data/ into `copies`, checking each file's
// checksum, its place in the assignment and, for a restored directory, the manifest.
void ReadNode(const std::string& dir, const std::string& node, const Expected& expected, const ManifestNode* listed,
              bool restored, const std::vector<uint32_t>& caches, VerifyReport* report,
              std::map<CopyKey, std::vector<CopyInfo>>* copies) {
  const std::string data = dir + "/" + node + "/data";
  std::vector<std::string> names;
  for (const auto& path : ListPartitionFiles(data)) names.push_back(fs::path(path).filename().string());
  std::map<std::string, const ManifestEntry*> want;
  if (listed != nullptr) {
    for (const auto& f : listed->files) want[f.file] = &f;
  }
  if (restored) {
    for (const auto& [file, entry] : want) {
      if (std::find(names.begin(), names.end(), file) != names.end()) continue;
      uint32_t c = 0, p = 0;
      ParsePartitionFileName(file, &c, &p);
      if (!Wanted(caches, c)) continue;
      report->conflicts.push_back(
          {ConflictKind::kManifest, c, p, {node}, fmt::format("\"{}/{}\" is in restore.json but missing", data, file)});
    }
  }
  for (const auto& name : names) {
    uint32_t c = 0, p = 0;
    ParsePartitionFileName(name, &c, &p);
    if (!Wanted(caches, c)) continue;
    ++report->files;
    files_verified.fetch_add(1, std::memory_order_relaxed);
    const std::string path = fmt::format("{}/{}", data, name);
    auto holders = expected.holders.find({c, p});
    if (holders == expected.holders.end() ||
        std::find(holders->second.begin(), holders->second.end(), node) == holders->second.end()) {
      report->conflicts.push_back(
          {ConflictKind::kUnexpectedCopy,
           c,
           p,
           {node},
           fmt::format("\"{}\": {} holds no copy of cache {} partition {} by the assignment", path, node, c, p)});
    }
    auto bytes = wal::ReadFileToString(path, kMaxPartitionFileBytes);
    auto pf = bytes.ok() ? DecodePartitionFile(*bytes) : wal::Result<PartitionFile>(bytes.status());
    if (!pf.ok()) {
      report->conflicts.push_back(
          {ConflictKind::kChecksum, c, p, {node}, fmt::format("\"{}\": {}", path, pf.status().message())});
      continue;
    }
    if (pf->cache_id != c || pf->partition != p) {
      report->conflicts.push_back(
          {ConflictKind::kChecksum,
           c,
           p,
           {node},
           fmt::format("\"{}\" holds cache {} partition {}", path, pf->cache_id, pf->partition)});
      continue;
    }
    if (restored) {
      auto w = want.find(name);
      const uint64_t have = FileChecksum(*bytes);
      if (w == want.end()) {
        report->conflicts.push_back(
            {ConflictKind::kManifest, c, p, {node}, fmt::format("\"{}\" is not in restore.json", path)});
      } else if (w->second->checksum != have) {
        report->conflicts.push_back({ConflictKind::kManifest,
                                     c,
                                     p,
                                     {node},
                                     fmt::format("\"{}\": checksum 0x{:016x} but restore.json recorded 0x{:016x}", path,
                                                 have, w->second->checksum)});
      }
    }
    (*copies)[{c, p}].push_back({node, pf->lwm, pf->hwm, ContentHash(*pf), pf->entries.size()});
  }
}

}  // namespace

uint64_t PartitionFilesVerified() { return files_verified.load(std::memory_order_relaxed); }

wal::Result<VerifyReport> VerifyDirectory(const std::string& dir, const std::vector<uint32_t>& caches) {
  if (wal::IsUnfinishedOutput(dir)) {
    return wal::Status::Corruption(
        fmt::format("\"{}\" is unfinished ({} is there): write it again, or remove it", dir, wal::kIncompleteMarker));
  }
  return VerifyStaged(dir, caches);
}

wal::Result<VerifyReport> VerifyStaged(const std::string& dir, const std::vector<uint32_t>& caches) {
  auto cluster = cut::ReadClusterFile(dir);
  if (!cluster.ok()) {
    if (cluster.status().code() != wal::StatusCode::kNotFound) return cluster.status();
    return wal::Status::NotFound(fmt::format("\"{}\" has no cluster.json: not a cluster or restored directory", dir));
  }
  VerifyReport report;
  auto manifest = ReadManifest(dir);
  if (!manifest.ok() && manifest.status().code() != wal::StatusCode::kNotFound) return manifest.status();
  report.restored = manifest.ok();
  report.ignite = manifest.ok() && manifest->ignite;
  // Where each partition should be: for a restored directory, the assignment of the
  // cut's topology version, on the nodes restored (all of the version's servers unless
  // the restore was limited to some); for a cluster, the last version's.
  const cut::TopologyInfo* version =
      report.restored ? cluster->FindVersion(manifest->topology_version) : &cluster->versions.back();
  if (version == nullptr) {
    return wal::Status::Corruption(fmt::format(
        "\"{}/restore.json\" names topology version {}, before any in cluster.json", dir, manifest->topology_version));
  }
  const Expected expected =
      ExpectedCopies(*cluster, *version, report.restored ? manifest->only_nodes : std::vector<std::string>{},
                     report.restored ? &*manifest : nullptr, caches);
  std::map<CopyKey, std::vector<CopyInfo>> copies;
  // The nodes' files are read on a thread per core, each node's into a report of its own,
  // then taken in the nodes' order: the report is the same as one read in turn.
  const size_t node_count = expected.nodes.size();
  std::vector<const ManifestNode*> listed(node_count, nullptr);
  std::vector<VerifyReport> read(node_count);
  std::vector<std::map<CopyKey, std::vector<CopyInfo>>> read_copies(node_count);
  std::vector<std::exception_ptr> thrown(node_count);  // out of memory: rethrown here, not ending a thread
  {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < node_count; i = next++) {
        try {
          ReadNode(dir, expected.nodes[i], expected, listed[i], report.restored, caches, &read[i], &read_copies[i]);
        } catch (...) {
          thrown[i] = std::current_exception();
        }
      }
    };
    for (size_t i = 0; i < node_count && report.restored; ++i) {
      for (const auto& m : manifest->nodes) {
        if (m.node == expected.nodes[i]) listed[i] = &m;
      }
    }
    // At most four: each holds one partition file in memory while it reads it.
    constexpr size_t kMaxThreads = 4;
    const size_t threads =
        std::min({node_count, kMaxThreads, static_cast<size_t>(std::max(1u, std::thread::hardware_concurrency()))});
    std::vector<std::jthread> pool;
    for (size_t t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no thread to be had: this one reads what is left
      }
    }
    work();
  }
  for (const auto& e : thrown) {
    if (e) std::rethrow_exception(e);
  }
  for (size_t i = 0; i < node_count; ++i) {
    if (report.restored && listed[i] == nullptr) {
      report.conflicts.push_back({ConflictKind::kManifest,
                                  0,
                                  0,
                                  {expected.nodes[i]},
                                  fmt::format("{} should have been restored (topology version {}), but restore.json "
                                              "does not list it",
                                              expected.nodes[i], version->version)});
    }
    report.files += read[i].files;
    for (auto& c : read[i].conflicts) report.conflicts.push_back(std::move(c));
    for (auto& [key, infos] : read_copies[i]) {
      auto& to = copies[key];
      for (auto& info : infos) to.push_back(std::move(info));
    }
  }
  if (report.restored) {
    for (const auto& n : manifest->nodes) {
      if (std::find(expected.nodes.begin(), expected.nodes.end(), n.node) == expected.nodes.end()) {
        report.conflicts.push_back({ConflictKind::kManifest,
                                    0,
                                    0,
                                    {n.node},
                                    fmt::format("restore.json lists {}, which holds no copy at topology version {}",
                                                n.node, version->version)});
      }
    }
    if (manifest->forced) {
      for (const auto& c : manifest->conflicts) {
        report.conflicts.push_back({ConflictKind::kForced, 0, 0, {}, "kept with --force although: " + c});
      }
    }
  }
  // Every copy the assignment expects, present; then the copies agree.
  for (const auto& [key, holders] : expected.holders) {
    const auto& list = copies[key];
    std::vector<std::string> missing;
    for (const auto& n : holders) {
      if (std::none_of(list.begin(), list.end(), [&](const CopyInfo& ci) { return ci.node == n; }))
        missing.push_back(n);
    }
    if (!missing.empty()) {
      report.conflicts.push_back({ConflictKind::kMissingCopy, key.first, key.second, missing,
                                  list.empty() ? std::string("no copy of the partition is present")
                                               : fmt::format("{} of {} copies present", list.size(), holders.size())});
    }
  }
  std::set<uint32_t> atomic;
  for (const auto& c : cluster->caches) {
    if (c.atomic) atomic.insert(c.id);
  }
  for (const auto& [key, list] : copies) {
    if (!list.empty()) ++report.partitions;
    if (atomic.count(key.first) == 0) {
      CompareCopies(key.first, key.second, list, &report.conflicts);
      continue;
    }
    std::vector<Conflict> found;
    CompareCopies(key.first, key.second, list, &found);
    for (auto& c : found) {
      // An open gap is damage in any cache; copies that differ are what ATOMIC allows.
      auto& to = c.nodes.size() > 1 ? report.atomic_differences : report.conflicts;
      to.push_back(std::move(c));
    }
  }
  return report;
}

}  // namespace recovery
