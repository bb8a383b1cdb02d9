// An output directory written so that it never looks complete before it is: written
// under OUT.partial and renamed to OUT at the end (then OUT's parent is fsynced), or,
// when OUT is an empty directory (a fresh mount point cannot be renamed onto), written
// in place. Either way the directory holds the marker file .walcut-incomplete from its
// first write until Publish(), so a directory that has it is unfinished: readers refuse
// it, and a new StagedOutput for the same OUT clears it and starts over. An OUT.partial
// without the marker is not ours and is never removed. OUT's missing parents are made,
// and removed again with what was written when it is discarded.
#pragma once

#include <string>
#include <vector>

#include "libwal/status.h"

namespace wal {

inline constexpr const char* kIncompleteMarker = ".walcut-incomplete";

// Whether `dir` holds the marker of an unfinished output.
bool IsUnfinishedOutput(const std::string& dir);

// Whether files can be written in directory `dir`, made with its missing parents when
// it does not exist: it, or else the nearest of its parents that exists, is a directory
// this process may write in. kIoError naming it when not. Nothing is changed.
Status CanWriteInto(const std::string& dir);

class StagedOutput {
 public:
  // kAlreadyExists for an OUT that exists and is neither an empty directory nor an
  // unfinished output; kInvalidArgument for an OUT.partial that is not ours; kIoError.
  // Begins with Check.
  static Result<StagedOutput> Begin(const std::string& out);
  // What Begin would refuse, found without changing anything: a command checks its
  // output before the work that fills it (a restore reads every WAL first). Also
  // kIoError for an OUT whose parent is not a directory it may write in.
  static Status Check(const std::string& out);

  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput& operator=(StagedOutput&&) = delete;
  StagedOutput(const StagedOutput&) = delete;
  // Discards what was written unless Publish() succeeded.
  ~StagedOutput();

  // Where to write: OUT.partial, or OUT itself.
  const std::string& dir() const { return stage_; }
  // Makes everything written under dir() so far durable, at once. On Linux, one syncfs(2)
  // of the filesystem that holds it: a single journal commit and device flush, where an
  // fsync per file costs one each (an output of a few hundred small files spends more in
  // those than in writing). It also flushes what others wrote to that filesystem, and
  // fails on a write error there since Begin, which may be another file's. Where syncfs
  // does not report errors (Linux before 5.8) or is missing, an fsync of each file and
  // directory under dir().
  Status SyncAll();
  // Syncs the directory, removes the marker, renames OUT.partial to OUT and syncs OUT's
  // parent (or, in place, syncs OUT).
  Status Publish();
  // Removes what was written: OUT.partial, or what is in OUT.
  void Discard();

 private:
  StagedOutput(std::string out, std::string stage, bool in_place)
      : out_(std::move(out)), stage_(std::move(stage)), in_place_(in_place) {}
  Status MakeParents();
  Status Mark();         // writes the marker
  Status OpenForSync();  // sync_fd_, opened before anything but the marker is written

  std::string out_;
  std::string stage_;
  std::vector<std::string> made_;  // parents of OUT made by Begin, outermost first
  bool in_place_ = false;
  bool done_ = false;
  int sync_fd_ = -1;  // dir(), held open from Begin: syncfs reports errors since its opening
};

}  // namespace wal
