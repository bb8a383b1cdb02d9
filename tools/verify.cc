#include "tools/verify.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/ranges.h>

#include "app/ignite_stores.h"
#include "libcut/cluster_file.h"
#include "recovery/manifest_file.h"
#include "recovery/partition_file.h"
#include "recovery/verify.h"
#include "tools/cache_names.h"
#include "tools/json_writer.h"
#include "tools/progress.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

void ConflictsJson(const recovery::VerifyReport& r, const std::vector<recovery::Conflict>& list, JsonWriter& j) {
  j.BeginArray();
  for (const auto& c : list) {
    j.BeginObject().Field("kind", recovery::ConflictKindName(c.kind));
    if (r.ignite) {
      j.Field("cache", static_cast<int32_t>(c.cache));
    } else {
      j.Field("cache", c.cache);
    }
    j.Field("partition", c.partition).Key("nodes").BeginArray();
    for (const auto& n : c.nodes) j.String(n);
    j.EndArray().Field("detail", c.detail).EndObject();
  }
  j.EndArray();
}

void VerifyJson(const recovery::VerifyReport& r, fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("ok", r.conflicts.empty()).Field("restored", r.restored);
  j.Field("partitions", r.partitions).Field("files", r.files).Key("conflicts");
  ConflictsJson(r, r.conflicts, j);
  if (!r.atomic_differences.empty()) {
    j.Key("atomic_differences");
    ConflictsJson(r, r.atomic_differences, j);
  }
  j.EndObject();
  b->push_back('\n');
}

void VerifyText(const recovery::VerifyReport& r, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  for (const auto& c : r.conflicts) {
    fmt::format_to(it, "conflict {} cache {} partition {} [{}]: {}\n", recovery::ConflictKindName(c.kind),
                   r.ignite ? std::to_string(static_cast<int32_t>(c.cache)) : std::to_string(c.cache), c.partition,
                   fmt::join(c.nodes, ","), c.detail);
  }
  for (const auto& c : r.atomic_differences) {
    fmt::format_to(it, "differs (ATOMIC) {} cache {} partition {} [{}]: {}\n", recovery::ConflictKindName(c.kind),
                   static_cast<int32_t>(c.cache), c.partition, fmt::join(c.nodes, ","), c.detail);
  }
  std::string verdict = r.conflicts.empty() ? "all copies agree" : fmt::format("{} conflict(s)", r.conflicts.size());
  if (!r.atomic_differences.empty()) {
    verdict += fmt::format("{} {} difference(s) between copies of ATOMIC caches, as Ignite's own restore leaves them",
                           r.conflicts.empty() ? " but for" : "; and", r.atomic_differences.size());
  }
  fmt::format_to(it, "{} partitions in {} files{}: {}\n", r.partitions, r.files,
                 r.restored ? " (checked against restore.json)" : "", verdict);
}

}  // namespace

int RunVerify(const VerifyOptions& o, Output& output) {
  if (std::all_of(o.dirs.begin(), o.dirs.end(), app::IsIgniteStoreInput)) return RunIgniteVerify(o, output);
  if (o.dirs.size() != 1) {
    output.Error("verify takes one of walcut's directories (several only of Apache Ignite's)");
    return kExitUsage;
  }
  const std::string& dir = o.dirs[0];
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    output.Error("\"{}\" {}", dir, fs::exists(dir, ec) ? "is not a directory" : "does not exist");
    return kExitUnreadable;
  }
  std::vector<uint32_t> caches;
  if (!o.cache_names.empty()) {
    std::map<uint32_t, std::string> known;
    if (auto cluster = cut::ReadClusterFile(dir); cluster.ok()) {
      for (const auto& c : cluster->caches) known[c.id] = c.name;
    }
    auto restored = recovery::ReadManifest(dir);
    if (!ResolveCacheNames(o.cache_names, known, restored.ok() && restored->ignite, dir, &caches, output)) {
      return kExitUsage;
    }
  }
  auto report = [&] {
    // Progress by partition files, counted in the node directories' data/ folders.
    uint64_t files = 0;
    if (output.progress) {
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_directory()) files += recovery::ListPartitionFiles((entry.path() / "data").string()).size();
      }
    }
    const uint64_t base = recovery::PartitionFilesVerified();
    Progress progress(output.progress, "verifying", files, "partition files",
                      [base] { return recovery::PartitionFilesVerified() - base; });
    return recovery::VerifyDirectory(dir, caches);
  }();
  if (!report.ok()) {
    output.Error("{}", report.status().message());
    return kExitUnreadable;
  }
  if (!o.quiet) {
    fmt::memory_buffer b;
    if (o.json) {
      VerifyJson(*report, &b);
    } else {
      VerifyText(*report, &b);
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return report->conflicts.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
