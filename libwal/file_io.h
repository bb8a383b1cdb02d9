// Whole files in and out: reading a side file with a size limit, writing one so that a
// crash leaves it either absent, its old self or complete, and syncing a directory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

// kIoError "cannot WHAT "PATH": strerror(errno)", for the call that just failed.
Status Errno(const char* what, const std::string& path);

// The bytes of the regular file `path`, refused when larger than `max_bytes`.
// kNotFound when it does not exist, kIoError when it cannot be read (the message names
// the path and the system's reason), kInvalidArgument when it is too large or not a
// regular file.
Result<std::string> ReadFileToString(const std::string& path, uint64_t max_bytes);

// At most the first `n` bytes of the regular file `path` (fewer when it is shorter): a
// look at what a file is. Errors as ReadFileToString's, but a larger file is no error.
Result<std::string> ReadFilePrefix(const std::string& path, size_t n);

// Writes `bytes` to `path` through `path`.tmp and rename, so `path` is either absent,
// its old self, or complete; with `sync` (the default) the file and the directory are
// fsynced too, so that this holds across a crash.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, bool sync = true);

// Creates `path` (it must not exist), writes `bytes` and fsyncs it; no rename. For files
// in a directory that is published as a whole later (see SyncDirectory).
Status WriteNewFileSynced(const std::string& path, std::string_view bytes);

// Creates `path` (it must not exist) and writes `bytes`, not synced: for the files of an
// output that is made durable as a whole before it is published (StagedOutput::SyncAll).
// A name that exists is refused, naming it, and left as it was.
Status WriteNewFile(const std::string& path, std::string_view bytes);

// fsync of a directory, so that names created, renamed or removed in it survive a crash.
Status SyncDirectory(const std::string& dir);

// The directory part of `path` ("." when it has none).
std::string ParentOf(const std::string& path);

// Moves `from` into directory `to_dir` under the same name, durably: a hard link where the
// two share a file system, else a copy (fsynced, then linked into place); `to_dir` is
// fsynced, then `from` removed (its own directory is the caller's to fsync). A file
// already there with the same bytes (a move cut short) counts as moved; one with other
// bytes is never overwritten (kAlreadyExists), and `to_dir` being `from`'s own folder
// moves nothing (kInvalidArgument).
Status MoveFileInto(const std::string& from, const std::string& to_dir);

}  // namespace wal
