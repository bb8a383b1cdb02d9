// How a reading problem is named and printed.
#include <fmt/format.h>

#include "libwal/wal_reader.h"

namespace wal {

const char* IssueKindName(IssueKind kind) {
  switch (kind) {
    case IssueKind::kTornTail: return "torn tail";
    case IssueKind::kCorruption: return "corruption";
    case IssueKind::kMissingSegment: return "missing segment";
    case IssueKind::kDuplicateSegment: return "duplicate segment";
    case IssueKind::kForeignSegment: return "foreign segment";
    case IssueKind::kBadLz4: return "damaged lz4 frame";
    case IssueKind::kBadZip: return "damaged zip entry";
    case IssueKind::kIoError: return "i/o error";
    case IssueKind::kRedundantCopy: return "redundant copy";
    case IssueKind::kNotWal: return "not a WAL segment";
    case IssueKind::kUnsupported: return "unsupported segment";
    case IssueKind::kStaleBytes: return "stale bytes";
  }
  return "unknown";
}

std::string Issue::ToString() const {
  std::string s = fmt::format("\"{}\": {} at {}offset {} (record {}): {}", file, IssueKindName(kind),
                              in_zip_entry ? "entry " : "", offset, record_index, message);
  if (has_checksums && checksum_bytes == 4) {
    s += fmt::format(", expected checksum 0x{:08x}, actual 0x{:08x}", expected_checksum, actual_checksum);
  } else if (has_checksums) {
    s += fmt::format(", expected checksum 0x{:016x}, actual 0x{:016x}", expected_checksum, actual_checksum);
  }
  if (bytes_skipped != 0) s += fmt::format(", skipped {} bytes", bytes_skipped);
  return s;
}

}  // namespace wal
