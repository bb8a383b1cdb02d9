// `walcut verify` of Apache Ignite's page files.
#include <iterator>
#include <map>

#include <fmt/ranges.h>

#include "app/ignite_stores.h"
#include "libwal/ignite_snapshot.h"
#include "recovery/ignite_verify.h"
#include "tools/cache_names.h"
#include "tools/json_writer.h"
#include "tools/progress.h"
#include "tools/verify.h"

namespace tools {
namespace {

std::string Where(const recovery::IgniteConflict& c) {
  if (c.conflict.cache == 0) return "";
  return fmt::format(" group {} ({}) partition {}", c.group, static_cast<int32_t>(c.conflict.cache),
                     c.conflict.partition);
}

void IgniteVerifyText(const app::IgniteStores& s, const recovery::IgniteVerifyReport& r, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  for (const auto& c : r.conflicts) {
    fmt::format_to(it, "conflict {}{} [{}]: {}\n", recovery::ConflictKindName(c.conflict.kind), Where(c),
                   fmt::join(c.conflict.nodes, ","), c.conflict.detail);
  }
  fmt::format_to(it, "{} on {} node(s): {} partitions in {} files ({} pages, {} rows): {}\n",
                 s.snapshot.empty() ? std::string("page stores") : fmt::format("snapshot '{}'", s.snapshot), r.nodes,
                 r.partitions, r.files, r.pages, r.rows,
                 r.conflicts.empty() ? "all copies agree" : fmt::format("{} conflict(s)", r.conflicts.size()));
}

void IgniteVerifyJson(const app::IgniteStores& s, const recovery::IgniteVerifyReport& r, fmt::memory_buffer* b) {
  JsonWriter j(b);
  j.BeginObject().Field("schema", 1).Field("ok", r.conflicts.empty()).Field("snapshot", s.snapshot);
  j.Field("nodes", r.nodes).Field("partitions", r.partitions).Field("files", r.files).Field("pages", r.pages);
  j.Field("rows", r.rows).Key("conflicts").BeginArray();
  for (const auto& c : r.conflicts) {
    j.BeginObject().Field("kind", recovery::ConflictKindName(c.conflict.kind));
    j.Field("group_id", static_cast<int32_t>(c.conflict.cache)).Field("group", c.group);
    j.Field("partition", c.conflict.partition).Key("nodes").BeginArray();
    for (const auto& n : c.conflict.nodes) j.String(n);
    j.EndArray().Field("detail", c.conflict.detail).Key("copies").BeginArray();
    for (const auto& x : c.copies) {
      j.BeginObject().Field("node", x.node).Field("counter", x.counter).Field("size", x.size).Field("rows", x.rows);
      j.Field("hash", fmt::format("0x{:016x}", x.hash)).Field("ignite_hash", x.ignite.hash);
      j.Field("ignite_ver_hash", x.ignite.ver_hash).Field("ignite_hash_known", x.ignite.known).EndObject();
    }
    j.EndArray().EndObject();
  }
  j.EndArray().EndObject();
  b->push_back('\n');
}

}  // namespace

int RunIgniteVerify(const VerifyOptions& o, Output& output) {
  auto stores = app::ResolveIgniteStores(o.dirs, o.snapshot);
  if (!stores.ok()) {
    output.Error("{}", stores.status().message());
    return ExitCodeOf(stores.status(), Step::kInputs);
  }
  std::vector<recovery::IgniteVerifyNode> nodes;
  uint64_t files = 0;
  for (const auto& n : stores->nodes) {
    nodes.push_back({n.node, n.store, n.meta, n.meta_problem});
    if (auto groups = wal::ListIgniteGroups(n.store); groups.ok()) {
      for (const auto& g : *groups) files += g.files.size();
    }
  }
  std::atomic<uint64_t> done{0};
  recovery::IgniteVerifyOptions how;
  if (!o.cache_names.empty()) {
    // By the caches of the first node's groups: a cache's copies are its group's files.
    std::map<uint32_t, std::string> known;
    std::map<uint32_t, int32_t> group_of;
    if (auto groups = wal::ListIgniteGroups(stores->nodes.front().store); groups.ok()) {
      for (const auto& g : *groups) {
        for (const auto& c : g.caches) {
          known[static_cast<uint32_t>(c.id)] = c.name;
          group_of[static_cast<uint32_t>(c.id)] = g.id;
        }
      }
    }
    std::vector<uint32_t> caches;
    if (!ResolveCacheNames(o.cache_names, known, true, o.dirs.front(), &caches, output)) return kExitUsage;
    for (uint32_t c : caches) {
      auto g = group_of.find(c);
      how.groups.push_back(g != group_of.end() ? g->second : static_cast<int32_t>(c));
    }
  }
  how.baseline = stores->baseline;
  how.threads = o.jobs;
  how.progress = [&done](uint64_t d) { done = d; };
  auto report = [&] {
    Progress progress(output.progress, "verifying", files, "page files", [&done] { return done.load(); });
    return recovery::VerifyIgniteStores(nodes, how);
  }();
  if (!report.ok()) {
    output.Error("{}", report.status().message());
    return kExitUnreadable;
  }
  if (!o.quiet) {
    fmt::memory_buffer b;
    if (o.json) {
      IgniteVerifyJson(*stores, *report, &b);
    } else {
      IgniteVerifyText(*stores, *report, &b);
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return report->conflicts.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
