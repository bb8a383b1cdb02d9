#include "libwal/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "libwal/write_all.h"

namespace wal {

Status Errno(const char* what, const std::string& path) {
  return Status::IoError(fmt::format("cannot {} \"{}\": {}", what, path, strerror(errno)));
}

namespace {

// The bytes of the regular file `path`, at most `limit`: a larger file is refused when
// `whole`, else read up to the limit.
Result<std::string> ReadRegularFile(const std::string& path, uint64_t limit, bool whole) {
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
  if (whole && static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return Status::InvalidArgument(
        fmt::format("\"{}\" is {} bytes, more than the {} this file may have", path, st.st_size, limit));
  }
  std::string out;
  out.resize(static_cast<size_t>(std::min<uint64_t>(static_cast<uint64_t>(st.st_size), limit)));
  size_t done = 0;
  for (;;) {
    if (done == out.size()) {
      // The file may have grown since fstat: read on, within the limit.
      if (out.size() >= limit) break;
      out.resize(std::min<uint64_t>(limit, out.size() + 4096));
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

}  // namespace

Result<std::string> ReadFileToString(const std::string& path, uint64_t max_bytes) {
  return ReadRegularFile(path, max_bytes, /*whole=*/true);
}

Result<std::string> ReadFilePrefix(const std::string& path, size_t n) {
  return ReadRegularFile(path, n, /*whole=*/false);
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

namespace {

// Creates `path` (it must not exist) and writes `bytes`: the open file in *fd, or else the
// error, with nothing left open.
Status CreateNew(const std::string& path, std::string_view bytes, int* fd) {
  *fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (*fd < 0) return Errno("create", path);
  Status s = WriteAll(*fd, path, bytes);
  if (!s.ok()) ::close(*fd);
  return s;
}

Status SyncAndClose(int fd, const std::string& path) {
  Status s = ::fsync(fd) == 0 ? Status::Ok() : Errno("fsync", path);
  if (::close(fd) != 0 && s.ok()) s = Errno("close", path);
  return s;
}

}  // namespace

Status WriteNewFileSynced(const std::string& path, std::string_view bytes) {
  int fd = -1;
  WAL_RETURN_IF_ERROR(CreateNew(path, bytes, &fd));
  return SyncAndClose(fd, path);
}

Status WriteNewFile(const std::string& path, std::string_view bytes) {
  int fd = -1;
  WAL_RETURN_IF_ERROR(CreateNew(path, bytes, &fd));
  if (::close(fd) != 0) return Errno("close", path);
  return Status::Ok();
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

Status MoveFileInto(const std::string& from, const std::string& to_dir) {
  const std::string name = std::filesystem::path(from).filename().string();
  const std::string to = to_dir + "/" + name;
  if (::link(from.c_str(), to.c_str()) != 0) {
    const int e = errno;
    // The destination folder is `from`'s own (through a link): "to" is "from", and removing
    // it would lose the file. (A hard link left by a move cut short is in another folder.)
    struct stat from_st {
    }, to_st{};
    const std::string from_dir = ParentOf(from);
    if (e == EEXIST && ::stat(from_dir.c_str(), &from_st) == 0 && ::stat(to_dir.c_str(), &to_st) == 0 &&
        from_st.st_dev == to_st.st_dev && from_st.st_ino == to_st.st_ino) {
      return Status::InvalidArgument(
          fmt::format("\"{}\" is the WAL's own folder \"{}\": nothing moved", to_dir, from_dir));
    }
    if (e == EEXIST) {
      auto a = ReadFileToString(from, UINT64_MAX);
      auto b = ReadFileToString(to, UINT64_MAX);
      if (!a.ok()) return a.status();
      if (!b.ok()) return b.status();
      if (*a != *b) {
        return Status::AlreadyExists(
            fmt::format("\"{}\" exists with other bytes than \"{}\": not overwritten", to, from));
      }
    } else if (e == EXDEV || e == EPERM || e == ENOTSUP || e == EMLINK) {
      auto bytes = ReadFileToString(from, UINT64_MAX);
      if (!bytes.ok()) return bytes.status();
      const std::string partial = to + ".partial";
      ::unlink(partial.c_str());  // a copy cut short by a crash
      Status w = WriteNewFileSynced(partial, *bytes);
      struct stat st {};
      if (w.ok() && ::stat(from.c_str(), &st) == 0 && ::chmod(partial.c_str(), st.st_mode & 07777) != 0) {
        w = Status::IoError(fmt::format("\"{}\": {}", partial, std::strerror(errno)));
      }
      // link, not rename: a file that appeared under the name meanwhile is never replaced.
      if (w.ok() && ::link(partial.c_str(), to.c_str()) != 0) {
        w = errno == EEXIST ? Status::AlreadyExists(
                                  fmt::format("\"{}\" appeared while \"{}\" was copied: not overwritten", to, from))
                            : Status::IoError(fmt::format("\"{}\": {}", to, std::strerror(errno)));
      }
      ::unlink(partial.c_str());
      if (!w.ok()) return w;
    } else {
      return Status::IoError(fmt::format("\"{}\" to \"{}\": {}", from, to, std::strerror(e)));
    }
  }
  WAL_RETURN_IF_ERROR(SyncDirectory(to_dir));
  if (::unlink(from.c_str()) != 0) return Status::IoError(fmt::format("\"{}\": {}", from, std::strerror(errno)));
  return Status::Ok();
}

}  // namespace wal
