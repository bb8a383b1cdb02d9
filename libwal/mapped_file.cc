#include "libwal/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace wal {

Result<MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return Status::NotFound(fmt::format("cannot open \"{}\": no such file", path));
    return Status::IoError(fmt::format("cannot open \"{}\": {}", path, strerror(e)));
  }
  MappedFile f;
  f.path_ = path;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int e = errno;
    ::close(fd);
    return Status::IoError(
        fmt::format("cannot read \"{}\": {}", path, S_ISREG(st.st_mode) ? strerror(e) : "not a regular file"));
  }
  const auto size = static_cast<size_t>(st.st_size);
  // A small file is read, not mapped: unmapping, in a process whose other threads run on
  // other cores, interrupts each of them to flush its TLB, which costs more than copying a
  // page file of a few dozen KiB (a restore reads hundreds).
  constexpr size_t kMapFrom = size_t{1} << 20;
  if (size > 0) {
    void* m = size >= kMapFrom ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (m != MAP_FAILED) {
      f.map_ = static_cast<const char*>(m);
      f.size_ = size;
    } else {
      f.read_.resize(size);
      size_t done = 0;
      while (done < size) {
        const ssize_t n = ::read(fd, f.read_.data() + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int e = errno;
          ::close(fd);
          return Status::IoError(fmt::format("cannot read \"{}\": {}", path, strerror(e)));
        }
        if (n == 0) break;
        done += static_cast<size_t>(n);
      }
      f.read_.resize(done);
    }
  }
  ::close(fd);
  return f;
}

MappedFile MappedFile::FromString(std::string path, std::string bytes) {
  MappedFile f;
  f.path_ = std::move(path);
  f.read_ = std::move(bytes);
  return f;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (map_ != nullptr) munmap(const_cast<char*>(map_), size_);
    path_ = std::move(other.path_);
    map_ = other.map_;
    size_ = other.size_;
    read_ = std::move(other.read_);
    other.map_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (map_ != nullptr) munmap(const_cast<char*>(map_), size_);
}

}  // namespace wal
