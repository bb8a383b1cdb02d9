// Segment file names, and listing a WAL directory.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/ignite_format.h"
#include "libwal/segment_file.h"
#include "libwal/zip_entry.h"

namespace wal {

std::string SegmentFileName(uint64_t index, bool lz4) { return fmt::format("{:016}.wal{}", index, lz4 ? ".lz4" : ""); }

bool ParseSegmentFileName(std::string_view name, SegmentFile* f) {
  if (name.size() < 20) return false;
  std::string_view suffix = name.substr(16);
  if (suffix == ".wal") {
    f->compressed = f->zip = false;
  } else if (suffix == ".wal.lz4") {
    f->compressed = true;
    f->zip = false;
  } else if (suffix == ".wal.zip") {
    f->compressed = false;
    f->zip = true;
  } else {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < 16; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  f->index = v;
  return true;
}

bool ParseSegmentFileName(std::string_view name, uint64_t* index, bool* lz4) {
  SegmentFile f;
  if (!ParseSegmentFileName(name, &f) || f.zip) return false;
  *index = f.index;
  *lz4 = f.compressed;
  return true;
}

namespace {

// The first bytes of a .wal.zip's entry from the start of the file only: its local header
// and what follows (Ignite's compactor writes one entry, "<index>.wal", first). Empty when
// the start says otherwise; the caller then looks at the whole file, by its central
// directory, as a reading does.
std::string ZipHeadFromPrefix(const std::string& path) {
  constexpr size_t kPrefix = 4 << 10;  // 29 bytes inflate from the first few hundred
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string prefix(kPrefix, '\0');
  const ssize_t n = ::pread(fd, prefix.data(), prefix.size(), 0);
  ::close(fd);
  if (n < static_cast<ssize_t>(kPrefix)) return {};  // a file that small is looked at whole
  auto entry = ZipEntryStream::OpenFirstLocal(prefix);
  if (!entry.ok() || !(*entry)->info().name.ends_with(".wal")) return {};
  std::string head(ignite::kHeaderSize, '\0');
  size_t got = 0;
  bool done = false;
  std::string damage;
  while (got < head.size() && !done) got += (*entry)->Read(head.data() + got, head.size() - got, &done, &damage);
  if (got < head.size()) return {};
  return head;
}

}  // namespace

bool PlaceSegmentFile(SegmentFile* f, bool* all_zero) {
  if (all_zero != nullptr) *all_zero = false;
  std::string head;
  if (f->zip && !f->memory) head = ZipHeadFromPrefix(f->path);  // a look, not the whole file
  if (!head.empty()) {
    // placed from the start of the file
  } else if (f->zip || f->memory) {
    auto bytes = SegmentBytes::Load(*f, /*lazy=*/true, /*stream=*/true);
    if (!bytes.ok()) return false;
    bytes->FillHead(ignite::kHeaderSize);
    head = std::string(bytes->bytes().substr(0, ignite::kHeaderSize));
  } else {
    const int fd = ::open(f->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    head.resize(ignite::kHeaderSize);
    const ssize_t n = ::pread(fd, head.data(), head.size(), 0);
    ::close(fd);
    head.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  const SegmentProbe probe = ProbeSegment(head);
  if (all_zero != nullptr) *all_zero = probe.result == SegmentProbe::kAllZero;
  if (probe.result != SegmentProbe::kKnown) return false;
  f->format = probe.format;
  if (IsIgnite(probe.format)) f->index = DecodeFixed64(head.data() + 1);
  return true;
}

std::string WalLocation::ToString() const {
  std::string out;
  for (const auto& d : dirs) out += (out.empty() ? "" : " + ") + d;
  return out;
}

namespace {

Result<std::vector<SegmentFile>> ListOneDirectory(const std::string& wal_dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(wal_dir, ec);
  if (ec) {
    return Status::IoError(fmt::format("cannot list \"{}\": {}", wal_dir, ec.message()));
  }
  std::vector<SegmentFile> files;
  std::vector<bool> zero;
  bool ignite = false;
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    SegmentFile f;
    if (!ParseSegmentFileName(name, &f)) continue;
    f.path = entry.path().string();
    bool all_zero = false;
    if (!f.compressed) PlaceSegmentFile(&f, &all_zero);
    ignite = ignite || IsIgnite(f.format);
    zero.push_back(all_zero);
    files.push_back(std::move(f));
  }
  if (ignite) {
    size_t keep = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      if (zero[i]) continue;
      if (keep != i) files[keep] = std::move(files[i]);
      ++keep;
    }
    files.resize(keep);
  }
  std::sort(files.begin(), files.end(), [](const SegmentFile& a, const SegmentFile& b) {
    auto rank = [](const SegmentFile& f) { return f.zip ? 2 : f.compressed ? 1 : 0; };
    if (a.index != b.index) return a.index < b.index;
    return rank(a) != rank(b) ? rank(a) < rank(b) : a.path < b.path;
  });
  return files;
}

}  // namespace

namespace {

Result<std::vector<SegmentFile>> ListAll(const WalLocation& wal_dir) {
  if (wal_dir.dirs.size() == 1) return ListOneDirectory(wal_dir.dirs[0]);
  std::vector<SegmentFile> all;
  std::unordered_set<uint64_t> raw_listed, zip_listed;
  for (const auto& dir : wal_dir.dirs) {
    auto files = ListOneDirectory(dir);
    if (!files.ok()) return files.status();
    for (auto& f : *files) {
      if (!f.zip && !f.compressed && !raw_listed.insert(f.index).second) continue;
      if (f.zip && !zip_listed.insert(f.index).second) continue;
      all.push_back(std::move(f));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const SegmentFile& a, const SegmentFile& b) {
    auto rank = [](const SegmentFile& f) { return f.zip ? 2 : f.compressed ? 1 : 0; };
    if (a.index != b.index) return a.index < b.index;
    return rank(a) < rank(b);
  });
  return all;
}

}  // namespace

Result<std::vector<SegmentFile>> ListSegments(const WalLocation& wal_dir) {
  auto all = ListAll(wal_dir);
  if (!all.ok() || (wal_dir.first == 0 && wal_dir.last == UINT64_MAX)) return all;
  std::vector<SegmentFile> out;
  for (auto& f : *all) {
    if (f.index >= wal_dir.first && f.index <= wal_dir.last) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace wal
