#include "libwal/staged_output.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <filesystem>

#include <fmt/format.h>

#include "libwal/file_io.h"

namespace wal {
namespace fs = std::filesystem;

bool IsUnfinishedOutput(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / kIncompleteMarker, ec);
}

namespace {

// "out/" is "out" (not a directory "out/.partial" inside it).
std::string WithoutTrailingSlash(std::string out) {
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

Status StagedOutput::Check(const std::string& out_arg) {
  const std::string out = WithoutTrailingSlash(out_arg);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(out, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      return Status::AlreadyExists(fmt::format("output \"{}\" exists and is not a directory", out));
    if (!fs::is_empty(out, ec) && !IsUnfinishedOutput(out)) {
      return Status::AlreadyExists(fmt::format("output \"{}\" exists and is not an empty directory", out));
    }
  } else {
    const std::string stage = out + ".partial";
    const fs::file_status partial = fs::symlink_status(stage, ec);
    if (fs::exists(partial) && (!fs::is_directory(partial) || !IsUnfinishedOutput(stage))) {
      return Status::InvalidArgument(
          fmt::format("\"{}\" exists and is not an unfinished output of walcut's: move it away first", stage));
    }
  }
  return CanWriteInto(out);  // missing parents are made (Begin)
}

Status CanWriteInto(const std::string& dir_arg) {
  const std::string dir = WithoutTrailingSlash(dir_arg);
  std::error_code ec;
  fs::path at = dir;
  while (!at.empty() && !fs::exists(fs::symlink_status(at, ec))) at = at.parent_path();
  if (at.empty()) at = ".";
  const char* verb = at == fs::path(dir) ? "write in" : "create";
  if (!fs::is_directory(at, ec)) {
    return Status::IoError(fmt::format("cannot {} \"{}\": \"{}\" is not a directory", verb, dir, at.string()));
  }
  if (::access(at.c_str(), W_OK | X_OK) != 0) {
    return Status::IoError(fmt::format("cannot {} \"{}\": {}", verb, dir, strerror(errno)));
  }
  return Status::Ok();
}

// OUT's missing parents, made outermost first, each recorded so that Discard removes
// what a failed run made.
Status StagedOutput::MakeParents() {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::path(out_).parent_path(); !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    missing.push_back(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const bool made = fs::create_directory(*it, ec);
    if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", it->string(), ec.message()));
    if (made) made_.push_back(it->string());  // (not made: "a/.." once "a" is, say)
  }
  // Each made folder's entry, in the folder that holds it, survives a crash.
  for (const auto& d : made_) WAL_RETURN_IF_ERROR(SyncDirectory(ParentOf(d)));
  return Status::Ok();
}

Result<StagedOutput> StagedOutput::Begin(const std::string& out_arg) {
  const std::string out = WithoutTrailingSlash(out_arg);
  WAL_RETURN_IF_ERROR(Check(out));
  std::error_code ec;
  std::string stage;
  bool in_place = false;
  if (fs::exists(fs::symlink_status(out, ec))) {
    stage = out;
    in_place = true;
    for (const auto& e : fs::directory_iterator(out, ec)) fs::remove_all(e.path(), ec);
    if (ec) return Status::IoError(fmt::format("cannot empty \"{}\": {}", out, ec.message()));
    StagedOutput s(out, stage, in_place);
    WAL_RETURN_IF_ERROR(s.Mark());
    WAL_RETURN_IF_ERROR(s.OpenForSync());
    return s;
  }
  stage = out + ".partial";
  StagedOutput s(out, stage, in_place);
  WAL_RETURN_IF_ERROR(s.MakeParents());  // s discards on return: what it made goes
  if (fs::exists(fs::symlink_status(stage, ec))) {
    fs::remove_all(stage, ec);  // an unfinished output of ours (Check)
    if (ec) return Status::IoError(fmt::format("cannot remove \"{}\": {}", stage, ec.message()));
  }
  if (!fs::create_directory(stage, ec) || ec) {
    return Status::IoError(fmt::format("cannot create \"{}\": {}", stage, ec ? ec.message() : "it exists"));
  }
  WAL_RETURN_IF_ERROR(s.Mark());
  WAL_RETURN_IF_ERROR(s.OpenForSync());
  return s;
}

Status StagedOutput::Mark() {
  Status w = WriteNewFileSynced(stage_ + "/" + kIncompleteMarker, "written by walcut, not finished\n");
  if (w.ok()) w = SyncDirectory(stage_);
  return w;
}

Status StagedOutput::OpenForSync() {
  sync_fd_ = ::open(stage_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return sync_fd_ >= 0 ? Status::Ok() : Errno("open directory", stage_);
}

namespace {

// Whether syncfs(2) reports a write error on its filesystem since its descriptor was
// opened: from Linux 5.8 on. Before, it returned 0 all the same.
bool SyncfsReportsErrors() {
#if defined(__linux__)
  static const bool reports = [] {
    struct utsname u {};
    unsigned major = 0, minor = 0;
    return ::uname(&u) == 0 && std::sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
           (major > 5 || (major == 5 && minor >= 8));
  }();
  return reports;
#else
  return false;
#endif
}

}  // namespace

namespace {

// An fsync of every file and folder under `dir`.
Status SyncEachUnder(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> dirs{dir};
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string path = it->path().string();
    if (it->is_directory(ec)) {
      dirs.push_back(path);
      continue;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Errno("open", path);
    const bool synced = ::fsync(fd) == 0;
    const int e = errno;
    ::close(fd);
    if (!synced) {
      errno = e;
      return Errno("fsync", path);
    }
  }
  if (ec) return Status::IoError(fmt::format("cannot list \"{}\": {}", dir, ec.message()));
  for (const auto& d : dirs) WAL_RETURN_IF_ERROR(SyncDirectory(d));
  return Status::Ok();
}

}  // namespace

Status StagedOutput::SyncAll() {
#if defined(__linux__)
  if (SyncfsReportsErrors()) {
    if (::syncfs(sync_fd_) != 0) return Errno("syncfs", stage_);
    return Status::Ok();
  }
#endif
  return SyncEachUnder(stage_);
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : out_(std::move(other.out_)),
      stage_(std::move(other.stage_)),
      made_(std::move(other.made_)),
      in_place_(other.in_place_),
      done_(other.done_),
      sync_fd_(other.sync_fd_) {
  other.done_ = true;
  other.sync_fd_ = -1;
}

StagedOutput::~StagedOutput() {
  if (!done_) Discard();
  if (sync_fd_ >= 0) ::close(sync_fd_);
}

void StagedOutput::Discard() {
  done_ = true;
  std::error_code ec;
  if (!in_place_) {
    fs::remove_all(stage_, ec);
    // The parents it made, innermost first; one that something else has since written
    // into is not empty and stays.
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) fs::remove(*it, ec);
    return;
  }
  for (const auto& e : fs::directory_iterator(stage_, ec)) fs::remove_all(e.path(), ec);
}

Status StagedOutput::Publish() {
  WAL_RETURN_IF_ERROR(SyncDirectory(stage_));
  const std::string marker = stage_ + "/" + kIncompleteMarker;
  if (::unlink(marker.c_str()) != 0) return Status::IoError(fmt::format("cannot remove \"{}\"", marker));
  WAL_RETURN_IF_ERROR(SyncDirectory(stage_));
  if (!in_place_) {
    std::error_code ec;
    fs::rename(stage_, out_, ec);
    if (ec) return Status::IoError(fmt::format("cannot rename \"{}\" to \"{}\": {}", stage_, out_, ec.message()));
    WAL_RETURN_IF_ERROR(SyncDirectory(ParentOf(out_)));
  }
  done_ = true;
  return Status::Ok();
}

}  // namespace wal
