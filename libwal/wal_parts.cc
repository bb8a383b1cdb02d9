#include "libwal/wal_parts.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "libwal/wal_reader.h"

namespace wal {

std::vector<std::vector<SegmentFile>> CutIntoParts(const WalLocation& location, size_t parts, uint64_t min_bytes) {
  auto listed = ListSegments(location);
  if (!listed.ok() || parts < 2) return {};  // a listing that fails is the reader's to report
  std::vector<SegmentFile>& files = *listed;
  std::vector<uint64_t> size(files.size(), 0);
  uint64_t total = 0;
  size_t indexes = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    size[i] = files[i].memory ? files[i].memory->size() : std::filesystem::file_size(files[i].path, ec);
    if (ec) size[i] = 0;
    total += size[i];
    indexes += i == 0 || files[i].index != files[i - 1].index;
  }
  if (indexes < 2 || total < std::max<uint64_t>(min_bytes, 1)) return {};
  parts = std::min(parts, indexes);
  std::vector<std::vector<SegmentFile>> out(1);
  uint64_t done = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const bool new_index = i > 0 && files[i].index != files[i - 1].index;
    // A part ends once it holds its share, at a change of index.
    if (new_index && out.size() < parts && !out.back().empty() && done * parts >= total * out.size())
      out.emplace_back();
    out.back().push_back(std::move(files[i]));
    done += size[i];
  }
  if (out.size() < 2) return {};
  return out;
}

bool FirstPartNode(const std::vector<SegmentFile>& first, std::optional<Uuid>* node) {
  ReaderOptions ro;
  ro.decode = false;
  ro.prefetch = false;
  ro.more_follow = true;
  auto reader = WalReader::OpenFiles({first.front()}, ro, nullptr);
  const Record* rec = nullptr;
  (void)reader->Next(&rec);
  *node = reader->node_id();
  return node->has_value() || IsIgnite(first.front().format);
}

}  // namespace wal
