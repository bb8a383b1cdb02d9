#include "recovery/ignite_verify.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "recovery/ignite_copies.h"

namespace recovery {
namespace {

// Damage lines a file's conflict quotes; the rest are counted.
constexpr size_t kDamageQuoted = 3;
constexpr int8_t kOwning = 1;

struct Task {
  size_t node = 0;
  const wal::IgniteGroupDir* group = nullptr;
  uint32_t partition = 0;
  std::string path;
  wal::Status status;
  IgniteCopy copy;
};

std::string GroupLabel(const wal::IgniteGroupDir& g) { return fmt::format("'{}' ({})", g.name, g.id); }

void Add(IgniteVerifyReport* r, ConflictKind kind, const wal::IgniteGroupDir* g, uint32_t partition,
         std::vector<std::string> nodes, std::string detail, std::vector<IgniteCopyState> copies = {}) {
  r->conflicts.push_back(
      {{kind, g != nullptr ? static_cast<uint32_t>(g->id) : 0, partition, std::move(nodes), std::move(detail)},
       g != nullptr ? g->name : std::string(),
       std::move(copies)});
}

// How many copies of a partition of `g` a snapshot of `nodes` baseline nodes holds.
size_t ExpectedCopies(const wal::IgniteGroupDir& g, size_t nodes, bool only_primary) {
  if (only_primary) return 1;
  for (const auto& c : g.caches) {
    if (!c.config) continue;
    if (c.config->mode == "REPLICATED") return nodes;
    return std::min(nodes, static_cast<size_t>(std::max(c.config->backups, 0)) + 1);
  }
  return 0;  // unknown: no configuration read
}

void RunTasks(std::vector<Task>* tasks, const IgniteVerifyOptions& o) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0};
  auto work = [&] {
    IgniteCopyOptions how;
    how.keep_rows = false;
    how.cancelled = o.cancelled;
    for (size_t i; (i = next.fetch_add(1)) < tasks->size();) {
      Task& t = (*tasks)[i];
      t.status = ReadIgniteCopy(*t.group, t.partition, t.path, how, &t.copy);
      const uint64_t d = done.fetch_add(1) + 1;
      if (o.progress && (d & 63) == 0) o.progress(d);
    }
  };
  unsigned n = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<size_t>(n, std::max<size_t>(tasks->size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (o.progress) o.progress(done.load());
}

void AddFileConflicts(const Task& t, const std::string& node, IgniteVerifyReport* r) {
  if (!t.status.ok()) {
    Add(r, ConflictKind::kNotRead, t.group, t.partition, {node}, t.status.message());
    return;
  }
  const IgniteCopy& c = t.copy;
  if (!c.damage.empty()) {
    std::string detail;
    for (size_t i = 0; i < c.damage.size() && i < kDamageQuoted; ++i) {
      detail += (i == 0 ? "" : "; ") + c.damage[i].ToString(t.path);
    }
    if (c.damage.size() > kDamageQuoted) detail += fmt::format("; and {} more", c.damage.size() - kDamageQuoted);
    Add(r, ConflictKind::kDamaged, t.group, t.partition, {node}, detail);
  }
  const bool data = t.partition != wal::ignite_page::kIndexPartition && !t.group->metastorage;
  if (!data || !c.meta_read) return;
  if (c.meta.state != kOwning) {
    Add(r, ConflictKind::kState, t.group, t.partition, {node},
        fmt::format("\"{}\": the partition is {}, not OWNING", t.path,
                    wal::ignite_page::PartitionStateName(c.meta.state)));
  }
  if (c.damage.empty() && c.meta.size != static_cast<int64_t>(c.rows)) {
    Add(r, ConflictKind::kSize, t.group, t.partition, {node},
        fmt::format("\"{}\": its meta page counts {} rows, its data pages hold {}", t.path, c.meta.size, c.rows));
  }
}

// The copies of one group partition compared with the first.
void CompareIgniteCopies(const wal::IgniteGroupDir& g, uint32_t partition, const std::vector<IgniteCopyState>& list,
                         IgniteVerifyReport* r) {
  auto add = [&](ConflictKind kind, std::vector<std::string> nodes, std::string detail) {
    Add(r, kind, &g, partition, std::move(nodes), std::move(detail), list);
  };
  for (size_t i = 1; i < list.size(); ++i) {
    const auto& a = list[0];
    const auto& b = list[i];
    if (a.counter != b.counter) {
      add(ConflictKind::kCounter, {a.node, b.node},
          fmt::format("update counter {} on {}, {} on {}", a.counter, a.node, b.counter, b.node));
    }
    if (a.hash != b.hash) {
      add(ConflictKind::kContent, {a.node, b.node},
          fmt::format("content hash 0x{:016x} ({} rows) on {}, 0x{:016x} ({} rows) on {}; Ignite's hashes {}/{} and "
                      "{}/{}",
                      a.hash, a.rows, a.node, b.hash, b.rows, b.node, a.ignite.hash, a.ignite.ver_hash, b.ignite.hash,
                      b.ignite.ver_hash));
    }
  }
}

}  // namespace

wal::Result<IgniteVerifyReport> VerifyIgniteStores(const std::vector<IgniteVerifyNode>& nodes,
                                                   const IgniteVerifyOptions& o) {
  IgniteVerifyReport r;
  r.nodes = nodes.size();
  std::vector<std::vector<wal::IgniteGroupDir>> groups(nodes.size());
  std::vector<Task> tasks;
  std::vector<std::string> given;  // consistent ids (or folders) of the nodes given
  bool only_primary = false;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const auto& node = nodes[n];
    given.push_back(node.meta ? node.meta->consistent_id : node.node);
    if (node.meta) only_primary |= node.meta->only_primary;
    if (!node.meta && !node.meta_problem.empty())
      Add(&r, ConflictKind::kNotRead, nullptr, 0, {node.node}, node.meta_problem);
    auto listed = wal::ListIgniteGroups(node.store);
    if (!listed.ok()) {
      Add(&r, ConflictKind::kNotRead, nullptr, 0, {node.node}, listed.status().message());
      continue;
    }
    groups[n] = std::move(listed).value();
    if (!o.groups.empty()) {
      std::erase_if(groups[n], [&](const wal::IgniteGroupDir& g) {
        return std::find(o.groups.begin(), o.groups.end(), g.id) == o.groups.end();
      });
    }
    for (const auto& g : groups[n]) {
      for (const auto& c : g.caches) {
        if (!c.problem.empty()) Add(&r, ConflictKind::kNotRead, &g, 0, {node.node}, c.problem);
      }
      for (const auto& [p, path] : g.files) tasks.push_back({n, &g, p, path, {}, {}});
    }
    if (!node.meta) continue;
    for (const auto& [group_id, parts] : node.meta->partitions) {  // what the metadata lists must be there
      const int32_t grp = group_id;  // clang 14 lets no lambda capture a structured binding
      if (!o.groups.empty() && std::find(o.groups.begin(), o.groups.end(), grp) == o.groups.end()) continue;
      auto g = std::find_if(groups[n].begin(), groups[n].end(), [&](const auto& x) { return x.id == grp; });
      if (g == groups[n].end()) {
        Add(&r, ConflictKind::kMissingCopy, nullptr, 0, {node.node},
            fmt::format("its metadata lists {} partitions of group {}, of which no directory is in \"{}\"",
                        parts.size(), grp, node.store));
        continue;
      }
      for (uint32_t p : parts) {
        if (std::none_of(g->files.begin(), g->files.end(), [&](const auto& f) { return f.first == p; })) {
          Add(&r, ConflictKind::kMissingCopy, &*g, p, {node.node},
              fmt::format("its metadata lists partition {} of group {}, whose file is not in \"{}\"", p, GroupLabel(*g),
                          g->path));
        }
      }
    }
  }
  for (const auto& b : o.baseline) {
    if (std::find(given.begin(), given.end(), b) == given.end()) {
      Add(&r, ConflictKind::kNotRead, nullptr, 0, {b},
          fmt::format("baseline node {} of the snapshot was not given: its copies are not checked", b));
    }
  }
  RunTasks(&tasks, o);
  if (o.cancelled && o.cancelled()) return wal::Status::Cancelled("cancelled");
  // Per group partition, each node's copy.
  std::map<std::pair<int32_t, uint32_t>, std::pair<const wal::IgniteGroupDir*, std::vector<IgniteCopyState>>> parts;
  for (const Task& t : tasks) {
    r.files++;
    r.pages += t.copy.pages;
    r.rows += t.copy.rows;
    AddFileConflicts(t, nodes[t.node].node, &r);
    if (!t.status.ok() || t.partition == wal::ignite_page::kIndexPartition || t.group->metastorage) continue;
    auto& e = parts[{t.group->id, t.partition}];
    e.first = t.group;
    e.second.push_back({nodes[t.node].node, t.copy.meta.update_counter, t.copy.meta.size, t.copy.rows,
                        t.copy.content_hash, t.copy.ignite});
  }
  const size_t baseline = o.baseline.empty() ? nodes.size() : o.baseline.size();
  // A node not given or not listed: how many copies each partition should have is moot.
  const bool all_given = std::none_of(r.conflicts.begin(), r.conflicts.end(), [](const IgniteConflict& c) {
    return c.conflict.kind == ConflictKind::kNotRead && c.conflict.cache == 0;
  });
  for (const auto& [key, e] : parts) {
    ++r.partitions;
    CompareIgniteCopies(*e.first, key.second, e.second, &r);
    const size_t want = ExpectedCopies(*e.first, baseline, only_primary);
    if (all_given && want != 0 && e.second.size() < want) {
      std::vector<std::string> holders;
      for (const auto& c : e.second) holders.push_back(c.node);
      Add(&r, ConflictKind::kMissingCopy, e.first, key.second, holders,
          fmt::format("group {}: {} of the {} copies its caches keep", GroupLabel(*e.first), e.second.size(), want));
    }
  }
  std::stable_sort(r.conflicts.begin(), r.conflicts.end(), [](const IgniteConflict& a, const IgniteConflict& b) {
    return std::tie(a.group, a.conflict.partition) < std::tie(b.group, b.conflict.partition);
  });
  return r;
}

}  // namespace recovery
