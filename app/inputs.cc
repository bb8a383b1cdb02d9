#include "app/inputs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_increment_meta.h"
#include "libwal/parse_once.h"

namespace app {
namespace fs = std::filesystem;

std::string ParentOf(const std::string& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.parent_path().string();
}

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string_view na(a.data() + i, i2 - i), nb(b.data() + j, j2 - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

// The node a WAL folder belongs to: walcut's <node>/wal; Ignite's db/wal/<folder> and
// db/wal/archive/<folder> are named for the node's folder (its consistent id).
std::string NodeOfWalDir(const fs::path& dir) {
  if (dir.filename() == "wal") return dir.parent_path().filename().string();
  const fs::path up = dir.parent_path();
  if (up.filename() == "wal" || (up.filename() == "archive" && up.parent_path().filename() == "wal")) {
    return dir.filename().string();
  }
  return "-";
}

// db/wal/<folder> or db/wal/archive/<folder>: the work directory above it.
fs::path IgniteWorkOfWalFolder(const fs::path& dir) {
  fs::path up = dir.parent_path();
  if (up.filename() == "archive") up = up.parent_path();
  if (up.filename() != "wal" || up.parent_path().filename() != "db") return {};
  return up.parent_path().parent_path();
}

bool IsIgniteWalFolder(const fs::path& dir) {
  const fs::path work = IgniteWorkOfWalFolder(dir);
  std::error_code ec;
  return !work.empty() && fs::is_directory(work / "db" / "wal", ec);
}

bool HasSegments(const fs::path& dir) {
  auto files = wal::ListSegments(dir.string());
  return files.ok() && !files->empty();
}

// An Ignite work directory's db/wal, given the directory or a node directory holding
// work/ (as the reference harness lays nodes out); empty when `p` is neither.
fs::path IgniteWalRoot(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p / "db" / "wal", ec)) return p / "db" / "wal";
  if (fs::is_directory(p / "work" / "db" / "wal", ec)) return p / "work" / "db" / "wal";
  return {};
}

// Adds the name of each directory in `dir` (but `except`) to `folders`, once.
void AddFolders(const fs::path& dir, std::vector<std::string>* folders, const std::string& except = "") {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string f = entry.path().filename().string();
    if (entry.is_directory() && f != except && std::find(folders->begin(), folders->end(), f) == folders->end()) {
      folders->push_back(f);
    }
  }
}

// Node folder `f` of Ignite input, read from those of `dirs` that exist, in their order.
WalInput IgniteNode(const std::string& f, const std::vector<fs::path>& dirs) {
  std::error_code ec;
  std::vector<std::string> existing;
  for (const auto& d : dirs) {
    if (fs::is_directory(d, ec)) existing.push_back(d.string());
  }
  WalInput in;
  in.node = f;
  in.wal_dir = wal::WalLocation(std::move(existing));
  in.ignite = true;
  return in;
}

bool IsIncrementName(const std::string& name);

// The increments' WAL folders of a work directory's snapshots, of node folder `f`, in
// order of snapshot and index.
std::vector<fs::path> IncrementWalDirs(const fs::path& work, const std::string& f) {
  std::error_code ec;
  std::vector<fs::path> snaps, out;
  for (const auto& s : fs::directory_iterator(work / "snapshots", ec)) {
    if (s.is_directory()) snaps.push_back(s.path());
  }
  std::sort(snaps.begin(), snaps.end());
  for (const auto& s : snaps) {
    std::vector<fs::path> incs;
    for (const auto& inc : fs::directory_iterator(s / "increments", ec)) {
      if (inc.is_directory() && IsIncrementName(inc.path().filename().string())) incs.push_back(inc.path());
    }
    std::sort(incs.begin(), incs.end());
    for (const auto& inc : incs) out.push_back(inc / "db" / "wal" / f);
  }
  return out;
}

// Each node folder of an Ignite db/wal (its consistent id's folder), in name order: the
// node's WAL is its archive folder, then its work folder (segment_file.h, WalLocation),
// then the segments its snapshots' increments keep that the archive no longer holds
// (Ignite deletes archived segments past maxWalArchiveSize; an increment's hard links stay).
std::vector<WalInput> IgniteNodes(const fs::path& root) {
  std::vector<std::string> folders;
  AddFolders(root, &folders, "archive");
  AddFolders(root / "archive", &folders);
  std::sort(folders.begin(), folders.end(), NaturalLess);
  std::vector<WalInput> nodes;
  const fs::path work = root.parent_path().parent_path();
  for (const auto& f : folders) {
    std::vector<fs::path> dirs{root / "archive" / f, root / f};
    for (auto& d : IncrementWalDirs(work, f)) dirs.push_back(std::move(d));
    nodes.push_back(IgniteNode(f, dirs));
    nodes.back().ignite_work = work.string();
  }
  return nodes;
}

}  // namespace

std::vector<std::string> BinaryMetaDirsOf(const WalInput& in) {
  std::vector<std::string> dirs;
  if (!in.ignite_work.empty()) dirs.push_back((fs::path(in.ignite_work) / "db" / "binary_meta" / in.node).string());
  if (!in.ignite_snapshot.empty()) {
    const fs::path snap(in.ignite_snapshot);
    dirs.push_back((snap / "db" / "binary_meta" / in.node).string());
    std::vector<fs::path> increments;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(snap / "increments", ec)) {
      if (entry.is_directory() && IsIncrementName(entry.path().filename().string())) increments.push_back(entry.path());
    }
    std::sort(increments.begin(), increments.end());
    for (const auto& inc : increments) dirs.push_back((inc / "db" / "binary_meta" / in.node).string());
  }
  return dirs;
}

namespace {

bool IsIncrementName(const std::string& name) {
  return name.size() == 16 && std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(c); });
}

// An Ignite snapshot directory (snapshots/<name>): each node folder its increments keep a
// WAL of (increments/<16 digits>/db/wal/<folder>), read from every increment in order;
// none when `p` is no such directory.
std::vector<WalInput> IgniteSnapshotNodes(const fs::path& p) {
  std::error_code ec;
  std::vector<fs::path> increments;
  for (const auto& entry : fs::directory_iterator(p / "increments", ec)) {
    if (entry.is_directory() && IsIncrementName(entry.path().filename().string())) increments.push_back(entry.path());
  }
  std::sort(increments.begin(), increments.end());
  std::vector<std::string> folders;
  for (const auto& inc : increments) AddFolders(inc / "db" / "wal", &folders);
  std::sort(folders.begin(), folders.end(), NaturalLess);
  std::vector<WalInput> nodes;
  for (const auto& f : folders) {
    std::vector<fs::path> dirs;
    for (const auto& inc : increments) dirs.push_back(inc / "db" / "wal" / f);
    nodes.push_back(IgniteNode(f, dirs));
    nodes.back().ignite_snapshot = p.string();
  }
  return nodes;
}

// The Ignite nodes of `p`: a work directory (or a node directory holding work/), a
// snapshot directory, or a directory of Ignite node or work directories (as copied from
// every node) that holds no walcut node; none when it is none of these.
std::vector<WalInput> IgniteInputsOf(const fs::path& p) {
  if (fs::path root = IgniteWalRoot(p); !root.empty()) return IgniteNodes(root);
  if (auto snapshot = IgniteSnapshotNodes(p); !snapshot.empty()) return snapshot;
  std::error_code ec;
  if (fs::exists(p / cut::kClusterFileName, ec)) return {};
  // Node or work directories, or copies of a snapshot directory (one from each node).
  std::vector<fs::path> ignite;
  for (const auto& entry : fs::directory_iterator(p, ec)) {
    if (!entry.is_directory()) continue;
    if (fs::is_directory(entry.path() / "wal")) return {};  // walcut's own nodes
    if (!IgniteWalRoot(entry.path()).empty() || !IgniteSnapshotNodes(entry.path()).empty()) {
      ignite.push_back(entry.path());
    }
  }
  std::sort(ignite.begin(), ignite.end(), [](const fs::path& a, const fs::path& b) {
    return NaturalLess(a.filename().string(), b.filename().string());
  });
  std::vector<WalInput> out;
  for (const auto& dir : ignite) {
    const fs::path root = IgniteWalRoot(dir);
    for (auto& n : root.empty() ? IgniteSnapshotNodes(dir) : IgniteNodes(root)) out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

bool IsIgniteInput(const WalInput& in) {
  if (in.ignite) return true;
  auto files =
      in.wal_dir.empty() ? wal::Result<std::vector<wal::SegmentFile>>(in.files) : wal::ListSegments(in.wal_dir);
  if (!files.ok()) return false;
  for (const auto& f : *files) {
    if (wal::IsIgnite(f.format)) return true;
  }
  return false;
}

std::optional<cut::NodeKept> KeptIncrementsOfNode(const WalInput& in) {
  if (!in.ignite) return std::nullopt;
  std::error_code ec;
  wal::IgniteNodeIncrements read;
  if (!in.ignite_snapshot.empty()) {
    wal::ReadIgniteSnapshotIncrements(in.ignite_snapshot, in.node, &read);
  } else if (!in.ignite_work.empty() && fs::exists(fs::path(in.ignite_work) / "snapshots", ec)) {
    read = wal::ReadIgniteIncrements(in.ignite_work, in.node);
  } else {
    // Kept only if another node has metadata: then this node's is missing, not absent.
    read.unreadable.push_back(
        fmt::format("{}: no snapshots/ folder, where the other nodes keep their "
                    "increments' metadata",
                    in.ignite_work.empty() ? in.node : in.ignite_work));
    return cut::NodeKept{in.node, {}, read.unreadable, {}, {}, false};
  }
  cut::NodeKept node{in.node, {}, read.unreadable, read.consistent_id, read.baseline, true};
  for (const auto& k : read.kept) {
    node.kept.push_back({k.meta.request_id, k.meta.snapshot, k.meta.index, k.meta.finish, k.path});
  }
  return node;
}

std::optional<std::vector<cut::NodeKept>> KeptIncrementsOf(const std::vector<WalInput>& inputs) {
  std::vector<cut::NodeKept> out;
  for (const auto& in : inputs) {
    if (std::optional<cut::NodeKept> node = KeptIncrementsOfNode(in)) out.push_back(std::move(*node));
  }
  return cut::KeptWhenAnyHasMetadata(std::move(out));
}

namespace {

// A folder one level off from an input (an Ignite work directory's db/ or db/wal/, a folder
// whose nodes/ holds the inputs): what to give instead, or "" when it is not one of those.
std::string OneLevelOff(const fs::path& p, const fs::path& abs) {
  std::error_code ec;
  const fs::path work = abs.filename() == "db" ? abs.parent_path()
                        : abs.filename() == "wal" && abs.parent_path().filename() == "db"
                            ? abs.parent_path().parent_path()
                            : fs::path();
  if (!work.empty() && !HasSegments(abs.filename() == "db" ? p / "wal" : p) &&
      fs::is_directory(work / "db" / "wal", ec)) {
    // Named as the user named the folder: its parent (or grandparent), when the path given has one.
    fs::path given = p.lexically_normal();
    if (given.filename().empty()) given = given.parent_path();
    fs::path up = abs.filename() == "db" ? given.parent_path() : given.parent_path().parent_path();
    if (up.empty() || (abs.filename() == "wal" && given.parent_path().filename() != "db")) up = work;
    return fmt::format("is a folder of an Apache Ignite work directory: give the work directory \"{}\" instead",
                       up.string());
  }
  // (The look for nodes/ first: finding the Ignite nodes of `p` reads their folders.)
  if (!fs::exists(p / "wal", ec) && !HasSegments(p) && !fs::exists(p / cut::kClusterFileName, ec) &&
      fs::is_directory(p / "nodes", ec) && IgniteInputsOf(p).empty() && !IgniteInputsOf(p / "nodes").empty()) {
    return fmt::format("holds its nodes in nodes/: give \"{}\" instead", (p / "nodes").string());
  }
  return {};
}

}  // namespace

wal::Result<WalInputs> ResolveWalInputs(const std::vector<std::string>& paths, bool cluster_above) {
  WalInputs result;
  std::vector<WalInput>& inputs = result.nodes;
  for (const auto& arg : paths) {
    fs::path p(arg);
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      return wal::Status::NotFound(fmt::format("cannot open \"{}\": no such file or directory", arg));
    }
    if (fs::is_regular_file(st)) {
      WalInput in;
      wal::SegmentFile f;
      if (!wal::ParseSegmentFileName(p.filename().string(), &f)) {
        return wal::Status::InvalidArgument(
            fmt::format("\"{}\" is not named like a segment (NNNNNNNNNNNNNNNN.wal, .wal.lz4 or .wal.zip)", arg));
      }
      f.path = arg;
      // An Ignite segment's index is in its header (work files are named modulo their count).
      if (!f.compressed) wal::PlaceSegmentFile(&f);
      in.node = NodeOfWalDir(fs::absolute(p).lexically_normal().parent_path());
      in.files.push_back(std::move(f));
      inputs.push_back(std::move(in));
      continue;
    }
    if (!fs::is_directory(st)) {
      return wal::Status::InvalidArgument(fmt::format("\"{}\" is not a file or directory", arg));
    }
    fs::path abs = fs::absolute(p).lexically_normal();
    if (abs.filename().empty()) abs = abs.parent_path();
    if (auto instead = OneLevelOff(p, abs); !instead.empty()) {
      return wal::Status::InvalidArgument(fmt::format("\"{}\" {}", arg, instead));
    }
    if (fs::is_directory(p / "wal")) {
      inputs.push_back({abs.filename().string(), (p / "wal").string(), {}, false, {}, {}, {}});
      // A node of a cluster directory: its cluster file says which other nodes there are.
      if (cluster_above && !result.cluster && fs::exists(abs.parent_path() / cut::kClusterFileName, ec)) {
        auto cluster = cut::ReadClusterFile(abs.parent_path().string());
        if (!cluster.ok()) return cluster.status();
        result.cluster = std::move(cluster).value();
        result.cluster_above = true;
      }
      continue;
    }
    if (HasSegments(p) && IsIgniteWalFolder(abs)) {
      // One Ignite WAL folder (db/wal/<folder> or db/wal/archive/<folder>): its work
      // directory's snapshots say which nodes the cluster has.
      WalInput in{NodeOfWalDir(abs), p.string(), {}, true, IgniteWorkOfWalFolder(abs).string(), {}, {}};
      inputs.push_back(std::move(in));
      continue;
    }
    if (HasSegments(p)) {
      inputs.push_back({NodeOfWalDir(abs), p.string(), {}, false, {}, {}, {}});
      continue;
    }
    if (auto ignite = IgniteInputsOf(p); !ignite.empty()) {
      for (auto& n : ignite) inputs.push_back(std::move(n));
      continue;
    }
    std::vector<std::string> nodes;
    if (fs::exists(p / cut::kClusterFileName, ec)) {
      auto cluster = cut::ReadClusterFile(p.string());
      if (!cluster.ok()) return cluster.status();
      nodes = cluster->ServerNames();
      if (!result.cluster) result.cluster = std::move(cluster).value();
    } else {
      for (const auto& entry : fs::directory_iterator(p, ec)) {
        if (entry.is_directory() && fs::is_directory(entry.path() / "wal")) {
          nodes.push_back(entry.path().filename().string());
        }
      }
      std::sort(nodes.begin(), nodes.end(), NaturalLess);
    }
    if (nodes.empty()) {
      return wal::Status::InvalidArgument(
          fmt::format("\"{}\" is not a segment, WAL directory, node directory, cluster directory, Apache Ignite work "
                      "directory or snapshot",
                      arg));
    }
    for (const auto& n : nodes) inputs.push_back({n, (p / n / "wal").string(), {}, false, {}, {}, {}});
  }
  return result;
}

std::vector<std::string> SnapshotDirsOf(const WalInput& in) {
  if (!in.ignite_snapshot.empty()) return {in.ignite_snapshot};
  std::vector<std::string> out;
  std::error_code ec;
  if (in.ignite_work.empty()) return out;
  for (const auto& e : fs::directory_iterator(fs::path(in.ignite_work) / "snapshots", ec)) {
    if (e.is_directory()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<wal::IgniteSnapshotMeta> FullSnapshotMeta(const std::string& dir, const std::string& folder) {
  auto bytes = wal::ReadFileToString((fs::path(dir) / (folder + ".smf")).string(), wal::ignite::kMaxSmfBytes);
  if (!bytes.ok()) return std::nullopt;
  auto m = wal::ParseOnce<wal::IgniteSnapshotMeta, wal::ParseIgniteSnapshotMeta>(*bytes);
  if (!m.ok() || m->folder != folder) return std::nullopt;
  return std::move(m).value();
}

std::optional<wal::IgniteIncrementMeta> IncrementSnapshotMeta(const std::string& dir, const std::string& folder,
                                                              uint32_t i) {
  auto bytes =
      wal::ReadFileToString((fs::path(dir) / "increments" / fmt::format("{:016d}", i) / (folder + ".smf")).string(),
                            wal::ignite::kMaxSmfBytes);
  if (!bytes.ok()) return std::nullopt;
  auto m = wal::ParseOnce<wal::IgniteIncrementMeta, wal::ParseIgniteIncrementMeta>(*bytes);
  if (!m.ok() || m->folder != folder || m->index != i) return std::nullopt;
  return std::move(m).value();
}

std::string BoundToIncrement(std::vector<WalInput>* nodes, const std::string& snapshot, uint32_t increment) {
  std::string name = snapshot;
  if (name.empty()) {  // the full snapshot taken last, of any node's
    uint64_t newest = 0;
    for (const auto& in : *nodes) {
      for (const auto& dir : SnapshotDirsOf(in)) {
        auto m = FullSnapshotMeta(dir, in.node);
        if (m && m->time_ms >= newest) {
          newest = m->time_ms;
          name = m->snapshot;
        }
      }
    }
  }
  bool any = false;
  for (auto& in : *nodes) {
    if (!in.ignite || in.wal_dir.empty()) continue;
    for (const auto& dir : SnapshotDirsOf(in)) {
      auto full = FullSnapshotMeta(dir, in.node);
      if (!full || full->snapshot != name || !full->record) continue;
      auto inc = IncrementSnapshotMeta(dir, in.node, increment);
      if (!inc) continue;
      in.stop_after = inc->request_id;
      in.wal_dir.first = full->record->segment;
      in.wal_dir.from_record = *full->record;
      if (auto next = IncrementSnapshotMeta(dir, in.node, increment + 1); next && next->finish) {
        in.wal_dir.last = next->finish->segment;
      }
      any = true;
      break;
    }
  }
  return any ? name : std::string();
}

std::optional<IncrementRange> IncrementRangeOf(const WalInput& in, const std::string& snapshot, uint32_t increment) {
  if (!in.ignite) return std::nullopt;
  for (const auto& dir : SnapshotDirsOf(in)) {
    auto full = FullSnapshotMeta(dir, in.node);
    if (!full || full->snapshot != snapshot || !full->record) continue;
    auto inc = IncrementSnapshotMeta(dir, in.node, increment);
    if (!inc) continue;
    return IncrementRange{*full->record, inc->request_id};
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, uint32_t>> LatestIncrement(const std::vector<WalInput>& nodes,
                                                                const std::string& snapshot) {
  std::string name = snapshot;
  uint64_t newest = 0;
  std::optional<std::pair<std::string, uint32_t>> found;
  for (const auto& in : nodes) {
    for (const auto& dir : SnapshotDirsOf(in)) {
      auto m = FullSnapshotMeta(dir, in.node);
      if (!m || (!snapshot.empty() && m->snapshot != snapshot)) continue;
      if (snapshot.empty() && m->time_ms >= newest) {
        newest = m->time_ms;
        name = m->snapshot;
      }
    }
  }
  if (name.empty()) return found;
  for (const auto& in : nodes) {
    for (const auto& dir : SnapshotDirsOf(in)) {
      auto m = FullSnapshotMeta(dir, in.node);
      if (!m || m->snapshot != name) continue;
      for (uint32_t i = 1; IncrementSnapshotMeta(dir, in.node, i); ++i) {
        if (!found || i > found->second) found = std::make_pair(name, i);
      }
    }
  }
  return found;
}

std::optional<std::pair<std::string, uint32_t>> IncrementOfCut(const std::vector<WalInput>& nodes,
                                                               const std::string& cut_id) {
  std::optional<std::pair<std::string, uint32_t>> found;
  std::string lower = cut_id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Only a whole id: a prefix may also begin the id of a cut no metadata names (a failed
  // increment's), which only the whole reading sees, and then the prefix names two cuts.
  if (lower.size() != wal::Uuid().ToString().size()) return std::nullopt;
  for (const auto& in : nodes) {
    if (!in.ignite) continue;
    wal::IgniteNodeIncrements read;
    if (!in.ignite_snapshot.empty()) {
      wal::ReadIgniteSnapshotIncrements(in.ignite_snapshot, in.node, &read);
    } else if (!in.ignite_work.empty()) {
      read = wal::ReadIgniteIncrements(in.ignite_work, in.node);
    }
    for (const auto& k : read.kept) {
      if (k.meta.request_id.ToString().rfind(lower, 0) != 0) continue;
      std::pair<std::string, uint32_t> at{k.meta.snapshot, k.meta.index};
      if (found && *found != at) return std::nullopt;
      found = at;
    }
  }
  return found;
}

}  // namespace app
