#include "libwal/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "libwal/write_all.h"

namespace wal {
namespace {

Status Errno(const char* what, const std::string& path) {
  return Status::IoError(fmt::format("cannot {} \"{}\": {}", what, path, strerror(errno)));
}

}  // namespace

Result<std::string> ReadFileToString(const std::string& path, uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(fmt::format("\"{}\" does not exist", path));
    return Errno("open", path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Status s = Errno("stat", path);
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(fmt::format("\"{}\" is not a regular file", path));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Status::InvalidArgument(
        fmt::format("\"{}\" is {} bytes, more than the {} this file may have", path, st.st_size, max_bytes));
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  for (;;) {
    if (done == out.size()) {
      // The file may have grown since fstat: read on, within the limit.
      if (out.size() >= max_bytes) break;
      out.resize(std::min<uint64_t>(max_bytes, out.size() + 4096));
    }
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Errno("read", path);
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

std::string ParentOf(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open directory", dir);
  int rc = ::fsync(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0) {
    errno = e;
    return Errno("fsync directory", dir);
  }
  return Status::Ok();
}

Status WriteNewFileSynced(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", path);
  Status s = WriteAll(fd, path, bytes);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("fsync", path);
  if (::close(fd) != 0 && s.ok()) s = Errno("close", path);
  return s;
}

NewFilesSynced::~NewFilesSynced() {
  for (const auto& f : open_) ::close(f.fd);
}

Status NewFilesSynced::Add(const std::string& path, std::string_view bytes) {
  if (open_.size() >= kOpen) WAL_RETURN_IF_ERROR(Finish());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", path);
  open_.push_back({fd, path});
  WAL_RETURN_IF_ERROR(WriteAll(fd, path, bytes));
#if defined(__linux__)
  // Only a hint: the fsync in Finish() is what makes the file durable.
  (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
  return Status::Ok();
}

Status NewFilesSynced::Finish() {
  Status s = Status::Ok();
  for (const auto& f : open_) {
    if (s.ok() && ::fsync(f.fd) != 0) s = Errno("fsync", f.path);
    if (::close(f.fd) != 0 && s.ok()) s = Errno("close", f.path);
  }
  open_.clear();
  return s;
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes, bool sync) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", tmp);
  Status s = WriteAll(fd, tmp, bytes);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Errno("fsync", tmp);
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = Errno("rename", tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync ? SyncDirectory(ParentOf(path)) : Status::Ok();
}

}  // namespace wal
