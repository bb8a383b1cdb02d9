#include "libwal/staged_output.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "libwal/file_io.h"

namespace wal {
namespace fs = std::filesystem;

bool IsUnfinishedOutput(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / kIncompleteMarker, ec);
}

Result<StagedOutput> StagedOutput::Begin(const std::string& out) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(out, ec);
  std::string stage;
  bool in_place = false;
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) return Status::AlreadyExists(fmt::format("output \"{}\" exists and is not a directory", out));
    if (!fs::is_empty(out, ec) && !IsUnfinishedOutput(out)) {
      return Status::AlreadyExists(fmt::format("output \"{}\" exists and is not an empty directory", out));
    }
    stage = out;
    in_place = true;
    for (const auto& e : fs::directory_iterator(out, ec)) fs::remove_all(e.path(), ec);
    if (ec) return Status::IoError(fmt::format("cannot empty \"{}\": {}", out, ec.message()));
  } else {
    stage = out + ".partial";
    if (fs::exists(fs::symlink_status(stage, ec))) {
      if (!fs::is_directory(fs::symlink_status(stage, ec)) || !IsUnfinishedOutput(stage)) {
        return Status::InvalidArgument(
            fmt::format("\"{}\" exists and is not an unfinished output of walcut's: move it away first", stage));
      }
      fs::remove_all(stage, ec);
      if (ec) return Status::IoError(fmt::format("cannot remove \"{}\": {}", stage, ec.message()));
    }
    if (!fs::create_directory(stage, ec) || ec) {
      return Status::IoError(fmt::format("cannot create \"{}\": {}", stage, ec ? ec.message() : "it exists"));
    }
  }
  StagedOutput s(out, stage, in_place);
  Status w = WriteNewFileSynced(stage + "/" + kIncompleteMarker, "written by walcut, not finished\n");
  if (w.ok()) w = SyncDirectory(stage);
  if (!w.ok()) return w;  // s discards on destruction
  return s;
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : out_(std::move(other.out_)), stage_(std::move(other.stage_)), in_place_(other.in_place_), done_(other.done_) {
  other.done_ = true;
}

StagedOutput::~StagedOutput() {
  if (!done_) Discard();
}

void StagedOutput::Discard() {
  done_ = true;
  std::error_code ec;
  if (!in_place_) {
    fs::remove_all(stage_, ec);
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
