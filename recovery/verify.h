// Verify (like Ignite's idle_verify): every copy of each partition has the same counter
// and content hash, every data file its checksum, and, for a restored directory, every
// file is the one restore.json recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libwal/status.h"

namespace recovery {

// What two copies, or a copy and restore.json, disagree about; walcut-verify(1)
// explains each.
enum class ConflictKind : uint8_t {
  kCounter,         // copies of a partition at different update counters
  kContent,         // copies at one counter with different content
  kChecksum,        // a data file whose checksum does not verify
  kMissingCopy,     // a copy the partition assignment expects is not there
  kUnexpectedCopy,  // a copy on a node the assignment does not name
  kManifest,        // a file that is not the one restore.json recorded
  kForced,          // restore.json says the restore was kept with --force
  // Of Apache Ignite's page files (ignite_verify.h):
  kDamaged,  // a page or row that does not read (CRC, page id, entry, link)
  kNotRead,  // a node, metadata or file that was not given or cannot be read
  kState,    // a partition copy that is not OWNING
  kSize,     // a partition meta page whose size is not the rows its pages hold
};
// "missing-copy".
const char* ConflictKindName(ConflictKind kind);

struct Conflict {
  ConflictKind kind = ConflictKind::kCounter;
  uint32_t cache = 0;
  uint32_t partition = 0;
  std::vector<std::string> nodes;
  std::string detail;
};

struct VerifyReport {
  uint64_t partitions = 0;
  uint64_t files = 0;
  bool restored = false;  // restore.json was found and checked
  bool ignite = false;    // a restore of Apache Ignite's (its cache ids are Java ints)
  std::vector<Conflict> conflicts;
  // Copies of an Ignite ATOMIC cache that differ in counter or content: not conflicts,
  // as Ignite's own restore leaves them so (no consistency across a cut for ATOMIC).
  std::vector<Conflict> atomic_differences;
};

// `dir`: a cluster or restored directory (cluster.json and NODE/data/). Every copy the
// partition assignment expects must be there, on the node it names and nowhere else, and
// all copies of a partition must agree.
// A directory holding the marker of an unfinished restore (restore_job.h) is refused.
// `caches`: only the copies of these caches (verify --cache); empty: every cache.
wal::Result<VerifyReport> VerifyDirectory(const std::string& dir, const std::vector<uint32_t>& caches = {});
// The same checks on a restore still being written (the marker present).
wal::Result<VerifyReport> VerifyStaged(const std::string& dir, const std::vector<uint32_t>& caches = {});

// Partition files that every verification of the process has read so far: what a
// progress display counts. Updated once per file.
uint64_t PartitionFilesVerified();

// What copies are compared by.
struct CopyInfo {
  std::string node;
  uint64_t lwm = 0, hwm = 0, hash = 0;
  size_t entries = 0;
};

// The rule copies of one partition must follow, stated once for verify and restore: the
// same counter and content hash on every copy, and no open gap (lwm below hwm).
void CompareCopies(uint32_t cache, uint32_t partition, const std::vector<CopyInfo>& copies, std::vector<Conflict>* out);

}  // namespace recovery
