#include "app/ignite_stores.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/format.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_increment_meta.h"
#include "libwal/ignite_partition_file.h"
#include "libwal/parse_once.h"

namespace app {
namespace fs = std::filesystem;
namespace {

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// A directory of a page store (db/<folder>/) holds cache group directories.
bool HoldsGroups(const fs::path& store) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store, ec)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory(ec) && (n.starts_with("cache-") || n.starts_with("cacheGroup-")) &&
        n != "cache-ignite-sys-cache") {
      return true;
    }
  }
  return false;
}

// The folders of db/ that are nodes' page stores.
std::vector<std::string> StoreFolders(const fs::path& db) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(db, ec)) {
    const std::string n = e.path().filename().string();
    if (!e.is_directory(ec) || n == "wal" || n == "binary_meta" || n == "marshaller") continue;
    if (HoldsGroups(e.path())) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool HasSmf(const fs::path& p) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (e.path().extension() == ".smf" && e.is_regular_file(ec)) return true;
  }
  return false;
}

bool IsSnapshotDir(const fs::path& p) { return IsDir(p / "db") && (HasSmf(p) || IsDir(p / "increments")); }

// A work directory, or a node directory holding work/: the work directory.
fs::path WorkDirOf(const fs::path& p) {
  if (IsDir(p / "db") && !IsSnapshotDir(p)) return p;
  if (IsDir(p / "work" / "db")) return p / "work";
  return {};
}

std::vector<std::string> SnapshotsOf(const fs::path& work) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(work / "snapshots", ec)) {
    if (e.is_directory(ec)) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The nodes of one snapshot directory, each with the metadata whose folder it is.
wal::Status AddSnapshot(const fs::path& dir, std::vector<IgniteNodeStore>* out) {
  std::map<std::string, wal::IgniteSnapshotMeta> metas;  // by folder
  std::vector<std::string> problems;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".smf") continue;
    auto bytes = wal::ReadFileToString(e.path().string(), wal::ignite::kMaxSmfBytes);
    auto meta = bytes.ok() ? wal::ParseOnce<wal::IgniteSnapshotMeta, wal::ParseIgniteSnapshotMeta>(*bytes)
                           : wal::Result<wal::IgniteSnapshotMeta>(bytes.status());
    if (!meta.ok()) {
      problems.push_back(fmt::format("\"{}\": {}", e.path().string(), meta.status().message()));
      continue;
    }
    std::string folder = meta->folder;
    metas.emplace(std::move(folder), std::move(meta).value());
  }
  const auto folders = StoreFolders(dir / "db");
  if (folders.empty()) {
    return wal::Status::InvalidArgument(
        fmt::format("\"{}\" is a snapshot directory holding no page files "
                    "(db/<folder>/cache-*)",
                    dir.string()));
  }
  for (const auto& f : folders) {
    IgniteNodeStore n;
    n.node = f;
    n.store = (dir / "db" / f).string();
    n.snapshot_dir = dir.string();
    if (auto m = metas.find(f); m != metas.end()) {
      n.meta = m->second;
    } else {
      n.meta_problem =
          problems.empty() ? fmt::format("\"{}\" holds no .smf naming folder {}", dir.string(), f) : problems.front();
    }
    n.binary_meta.push_back((dir / "db" / "binary_meta" / f).string());
    out->push_back(std::move(n));
  }
  return wal::Status::Ok();
}

wal::Status AddWork(const fs::path& work, const std::string& arg, const std::string& snapshot,
                    std::vector<IgniteNodeStore>* out) {
  if (!snapshot.empty()) {
    if (!IsDir(work / "snapshots" / snapshot)) {
      const auto have = SnapshotsOf(work);
      std::string list;
      for (const auto& s : have) list += (list.empty() ? "" : ", ") + s;
      return wal::Status::InvalidArgument(fmt::format("\"{}\" holds no snapshot '{}' ({})", arg, snapshot,
                                                      have.empty() ? "it holds none" : "it holds " + list));
    }
    return AddSnapshot(work / "snapshots" / snapshot, out);
  }
  const auto folders = StoreFolders(work / "db");
  if (folders.empty()) {
    const auto have = SnapshotsOf(work);
    std::string list;
    for (const auto& s : have) list += (list.empty() ? "" : ", ") + s;
    return wal::Status::InvalidArgument(fmt::format(
        "\"{}\" holds no page files of its own (db/<folder>/cache-*){}", arg,
        have.empty() ? std::string() : fmt::format("; its full snapshots: {} (give --snapshot NAME)", list)));
  }
  for (const auto& f : folders) {
    IgniteNodeStore n;
    n.node = f;
    n.store = (work / "db" / f).string();
    n.binary_meta.push_back((work / "db" / "binary_meta" / f).string());
    out->push_back(std::move(n));
  }
  return wal::Status::Ok();
}

wal::Status AddPath(const std::string& arg, const std::string& snapshot, std::vector<IgniteNodeStore>* out) {
  const fs::path p(arg);
  std::error_code ec;
  if (!fs::exists(p, ec))
    return wal::Status::NotFound(fmt::format("cannot open \"{}\": no such file or directory", arg));
  if (!IsDir(p)) return wal::Status::InvalidArgument(fmt::format("\"{}\" is not a directory", arg));
  if (IsSnapshotDir(p)) return AddSnapshot(p, out);
  if (fs::path work = WorkDirOf(p); !work.empty()) return AddWork(work, arg, snapshot, out);
  std::vector<fs::path> children;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (e.is_directory(ec) && (IsSnapshotDir(e.path()) || !WorkDirOf(e.path()).empty())) children.push_back(e.path());
  }
  std::sort(children.begin(), children.end());
  if (children.empty()) {
    return wal::Status::InvalidArgument(fmt::format(
        "\"{}\" is no Apache Ignite snapshot directory (snapshots/NAME), work directory or directory of them", arg));
  }
  for (const auto& c : children) {
    WAL_RETURN_IF_ERROR(IsSnapshotDir(c) ? AddSnapshot(c, out) : AddWork(WorkDirOf(c), c.string(), snapshot, out));
  }
  return wal::Status::Ok();
}

}  // namespace

bool IsIgniteStoreInput(const std::string& path) {
  const fs::path p(path);
  if (!IsDir(p)) return false;
  if (IsSnapshotDir(p) || !WorkDirOf(p).empty()) return true;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (e.is_directory(ec) && (IsSnapshotDir(e.path()) || !WorkDirOf(e.path()).empty())) return true;
  }
  return false;
}

wal::Result<IgniteStores> ResolveIgniteStores(const std::vector<std::string>& paths, const std::string& snapshot) {
  IgniteStores out;
  for (const auto& p : paths) WAL_RETURN_IF_ERROR(AddPath(p, snapshot, &out.nodes));
  std::sort(out.nodes.begin(), out.nodes.end(), [](const auto& a, const auto& b) { return a.node < b.node; });
  for (size_t i = 1; i < out.nodes.size(); ++i) {
    if (out.nodes[i].node == out.nodes[i - 1].node) {
      return wal::Status::InvalidArgument(fmt::format("node folder {} is given twice (\"{}\" and \"{}\")",
                                                      out.nodes[i].node, out.nodes[i - 1].store, out.nodes[i].store));
    }
  }
  for (const auto& n : out.nodes) {
    if (!n.meta) continue;
    if (out.snapshot.empty()) out.snapshot = n.meta->snapshot;
    if (n.meta->snapshot != out.snapshot) {
      return wal::Status::InvalidArgument(
          fmt::format("the inputs mix full snapshots '{}' and '{}'", out.snapshot, n.meta->snapshot));
    }
    for (const auto& b : n.meta->baseline) {
      if (std::find(out.baseline.begin(), out.baseline.end(), b) == out.baseline.end()) out.baseline.push_back(b);
    }
  }
  std::sort(out.baseline.begin(), out.baseline.end());
  if (!snapshot.empty() && !out.snapshot.empty() && out.snapshot != snapshot) {
    return wal::Status::InvalidArgument(fmt::format("the snapshot given is '{}', not '{}'", out.snapshot, snapshot));
  }
  return out;
}

namespace {

// The page stores of `in`: its own, then each full snapshot's, with the snapshot's name
// (empty for its own).
std::vector<std::pair<std::string, fs::path>> StoresOf(const WalInput& in) {
  std::vector<std::pair<std::string, fs::path>> out;
  std::error_code ec;
  if (!in.ignite_work.empty()) {
    const fs::path work(in.ignite_work);
    out.emplace_back("", work / "db" / in.node);
    std::vector<fs::path> snapshots;
    for (const auto& s : fs::directory_iterator(work / "snapshots", ec)) {
      if (s.is_directory(ec)) snapshots.push_back(s.path());
    }
    std::sort(snapshots.begin(), snapshots.end());
    for (const auto& s : snapshots)
      out.emplace_back(wal::IgniteSnapshotNameOf(s.string(), in.node), s / "db" / in.node);
  }
  if (!in.ignite_snapshot.empty()) {
    out.emplace_back(wal::IgniteSnapshotNameOf(in.ignite_snapshot, in.node),
                     fs::path(in.ignite_snapshot) / "db" / in.node);
  }
  return out;
}

}  // namespace

std::map<uint32_t, IgniteCacheFacts> IgniteCachesOf(const WalInput& in) {
  std::map<uint32_t, IgniteCacheFacts> out;
  std::error_code ec;
  for (const auto& [name, store] : StoresOf(in)) {
    if (!fs::is_directory(store, ec)) continue;
    auto groups = wal::ListIgniteGroups(store.string());
    if (!groups.ok()) continue;  // a store walcut cannot list names no cache
    for (const auto& g : *groups) {
      if (g.metastorage) continue;
      for (const auto& c : g.caches) {
        IgniteCacheFacts& f = out[static_cast<uint32_t>(c.id)];
        f.name = c.name;
        f.group = static_cast<uint32_t>(g.id);
        f.shared = g.shared;
        if (c.config) f.atomic = c.config->Atomic();
      }
    }
  }
  return out;
}

std::unordered_map<uint32_t, uint32_t> IgniteSharedGroupsOf(const WalInput& in) {
  std::unordered_map<uint32_t, uint32_t> out;
  for (const auto& [id, f] : IgniteCachesOf(in)) {
    if (f.shared) out[id] = f.group;
  }
  return out;
}

std::map<std::string, std::vector<recovery::PartitionLwm>> IgniteSnapshotLwmsOf(const WalInput& in) {
  std::map<std::string, std::vector<recovery::PartitionLwm>> out;
  std::error_code ec;
  for (const auto& [name, store] : StoresOf(in)) {
    if (name.empty() || !fs::is_directory(store, ec)) continue;
    auto groups = wal::ListIgniteGroups(store.string());
    if (!groups.ok()) continue;
    auto& lwms = out[name];
    for (const auto& g : *groups) {
      if (g.metastorage) continue;
      for (const auto& [partition, path] : g.files) {
        if (partition >= 65535) continue;  // index.bin
        auto file = wal::IgnitePartitionFile::Open(path);
        if (!file.ok() || file->pages() == 0) continue;
        const std::string_view page = file->Page(0);
        wal::ignite_page::PartitionMeta meta;
        std::string why;
        if (wal::ignite_page::ParsePageHeader(page).crc != wal::ignite_page::PageCrc(page) ||
            !wal::ignite_page::ParsePartitionMeta(page, &meta, &why) || meta.update_counter > wal::kMaxCounter) {
          continue;  // a damaged meta page tells nothing
        }
        lwms.push_back({static_cast<uint32_t>(g.id), partition, meta.update_counter});
      }
    }
  }
  return out;
}

}  // namespace app
