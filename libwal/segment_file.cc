#include "libwal/segment_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "libwal/format.h"
#include "libwal/lz4_codec.h"

namespace wal {

std::string SegmentFileName(uint64_t index, bool lz4) {
  return fmt::format("{:016}.wal{}", index, lz4 ? ".lz4" : "");
}

bool ParseSegmentFileName(std::string_view name, uint64_t* index, bool* lz4) {
  if (name.size() < 20) return false;
  std::string_view suffix = name.substr(16);
  if (suffix == ".wal") {
    *lz4 = false;
  } else if (suffix == ".wal.lz4") {
    *lz4 = true;
  } else {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < 16; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *index = v;
  return true;
}

Result<std::vector<SegmentFile>> ListSegments(const std::string& wal_dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(wal_dir, ec);
  if (ec) {
    return Status::IoError(fmt::format("cannot list \"{}\": {}", wal_dir, ec.message()));
  }
  std::vector<SegmentFile> files;
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    SegmentFile f;
    if (!ParseSegmentFileName(name, &f.index, &f.compressed)) continue;
    f.path = entry.path().string();
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const SegmentFile& a, const SegmentFile& b) {
    return a.index != b.index ? a.index < b.index : a.compressed < b.compressed;
  });
  return files;
}

SegmentBytes::SegmentBytes(SegmentBytes&& other) noexcept { *this = std::move(other); }

SegmentBytes& SegmentBytes::operator=(SegmentBytes&& other) noexcept {
  if (this == &other) return *this;
  Release();
  map_ = std::exchange(other.map_, nullptr);
  map_size_ = std::exchange(other.map_size_, 0);
  dropped_ = std::exchange(other.dropped_, 0);
  bool owned = other.data_ != nullptr && other.data_ == other.owned_.data();
  owned_ = std::move(other.owned_);
  data_ = owned ? owned_.data() : other.data_;
  size_ = other.size_;
  other.data_ = nullptr;
  other.size_ = 0;
  return *this;
}

SegmentBytes::~SegmentBytes() { Release(); }

void SegmentBytes::Release() {
  if (map_ != nullptr) munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  dropped_ = 0;
  data_ = nullptr;
  size_ = 0;
  owned_.clear();
}

SegmentBytes SegmentBytes::FromString(std::string bytes) {
  SegmentBytes s;
  s.owned_ = std::move(bytes);
  s.data_ = s.owned_.data();
  s.size_ = s.owned_.size();
  return s;
}

namespace {

Status ReadWhole(int fd, const std::string& path, size_t size, std::string* out) {
  out->resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out->data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(fmt::format("cannot read \"{}\": {}", path, strerror(errno)));
    if (n == 0) break;  // the file shrank under us: read what is there
    done += static_cast<size_t>(n);
  }
  out->resize(done);
  return Status::Ok();
}

}  // namespace

void SegmentBytes::DropBefore(size_t offset) {
  if (map_ == nullptr) return;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t upto = std::min(offset, map_size_) / page * page;
  if (upto <= dropped_) return;
  madvise(static_cast<char*>(map_) + dropped_, upto - dropped_, MADV_DONTNEED);
  dropped_ = upto;
}

Result<SegmentBytes> SegmentBytes::Load(const SegmentFile& file, bool lazy) {
  if (file.memory) {
    if (!file.compressed) return FromString(*file.memory);
    auto plain = DecompressLz4Frame(*file.memory, kMaxSegmentSize);
    if (!plain.ok()) {
      return Status(plain.status().code(),
                    fmt::format("\"{}\": {}", file.path, plain.status().message()));
    }
    return FromString(std::move(plain).value());
  }
  int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IoError(fmt::format("cannot open \"{}\": {}", file.path, strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::IoError(fmt::format("cannot stat \"{}\": {}", file.path, strerror(e)));
  }
  auto size = static_cast<size_t>(st.st_size);
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IoError(fmt::format("\"{}\" is not a regular file", file.path));
  }
  if (file.compressed) {
    std::string compressed;
    Status s = ReadWhole(fd, file.path, size, &compressed);
    ::close(fd);
    WAL_RETURN_IF_ERROR(s);
    auto plain = DecompressLz4Frame(compressed, kMaxSegmentSize);
    if (!plain.ok()) {
      return Status(plain.status().code(),
                    fmt::format("\"{}\": {}", file.path, plain.status().message()));
    }
    return FromString(std::move(plain).value());
  }
  if (size > kMaxSegmentSize) {
    ::close(fd);
    return Status::Corruption(fmt::format("\"{}\" is {} bytes, larger than any segment ({} bytes)",
                                          file.path, size, kMaxSegmentSize));
  }
  SegmentBytes s;
  if (size == 0) {
    ::close(fd);
    return s;
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (lazy ? 0 : MAP_POPULATE), fd, 0);
  if (map == MAP_FAILED) {
    std::string bytes;
    Status rs = ReadWhole(fd, file.path, size, &bytes);
    ::close(fd);
    WAL_RETURN_IF_ERROR(rs);
    return FromString(std::move(bytes));
  }
  ::close(fd);
  madvise(map, size, MADV_SEQUENTIAL);
  s.map_ = map;
  s.map_size_ = size;
  s.data_ = static_cast<const char*>(map);
  s.size_ = size;
  return s;
}

}  // namespace wal
