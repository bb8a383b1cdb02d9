#include "tools/data_dirs.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "app/inputs.h"
#include "libcut/cluster_file.h"
#include "recovery/partition_file.h"

namespace tools {
namespace fs = std::filesystem;

wal::Result<std::vector<DataDir>> ResolveDataDirs(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  if (!fs::is_directory(p, ec)) {
    return wal::Status::NotFound(fmt::format("\"{}\" is not a directory", path));
  }
  std::vector<DataDir> out;
  auto files = recovery::ListPartitionFiles(p.string());
  if (!files.empty()) {
    out.push_back({"-", p.string(), std::move(files)});
    return out;
  }
  fs::path abs = fs::absolute(p).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();
  if (fs::is_directory(p / "data")) {
    out.push_back(
        {abs.filename().string(), (p / "data").string(), recovery::ListPartitionFiles((p / "data").string())});
    return out;
  }
  std::vector<std::string> nodes;
  if (fs::exists(p / cut::kClusterFileName, ec)) {
    auto cluster = cut::ReadClusterFile(p.string());
    if (!cluster.ok()) return cluster.status();
    nodes = cluster->ServerNames();
  }
  if (nodes.empty()) {
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.is_directory() && fs::is_directory(e.path() / "data")) nodes.push_back(e.path().filename().string());
    }
    std::sort(nodes.begin(), nodes.end(), app::NaturalLess);
  }
  for (const auto& n : nodes) {
    fs::path d = p / n / "data";
    out.push_back(
        {n, d.string(), fs::is_directory(d) ? recovery::ListPartitionFiles(d.string()) : std::vector<std::string>{}});
  }
  if (out.empty()) {
    return wal::Status::InvalidArgument(
        fmt::format("\"{}\" holds no partition files: not a cluster, restored, node or data directory", path));
  }
  return out;
}

}  // namespace tools
