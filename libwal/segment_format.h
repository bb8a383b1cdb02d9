// Which on-disk format a segment is in. Chosen per segment by the magic of its header,
// never by a file name or a flag: walcut's own, Apache Ignite's (regular), or Ignite's
// compacted form (the content of a .wal.zip).
#pragma once

#include <cstdint>
#include <string_view>

namespace wal {

enum class SegmentFormat : uint8_t {
  kWalcut = 0,
  kIgnite = 1,           // a regular Ignite segment (work or archive .wal)
  kIgniteCompacted = 2,  // the logical records of one segment, as Ignite's compactor keeps them
};

const char* SegmentFormatName(SegmentFormat format);
inline bool IsIgnite(SegmentFormat f) { return f != SegmentFormat::kWalcut; }

// What the first bytes of a segment say.
struct SegmentProbe {
  enum Result : uint8_t {
    kKnown,         // `format` says which
    kTooShort,      // fewer bytes than any header
    kAllZero,       // the header's bytes are all zero: a file never written (or wiped)
    kUnknownMagic,  // a header of neither format; `magic` holds the bytes where one would be
  };
  Result result = kTooShort;
  SegmentFormat format = SegmentFormat::kWalcut;
  uint64_t magic = 0;
};

// What records mean where the formats differ, stated once: the floors above ask these
// rules rather than branch on the format.
struct FormatRules {
  // A DATA_RECORD_V2 entry whose near version is null is a write of no transaction that
  // may come anywhere in a node's WAL: Ignite's update of an ATOMIC cache, or a
  // rebalance's (flag PRELOAD). In walcut's format, entries of the null id are the
  // initial load, which precedes the first full snapshot and is out of order after it.
  bool writes_without_transaction = false;
  // Snapshot and cut records carry no time (Ignite's): the latest time of the node's records
  // before one stands for it.
  bool cut_records_untimed = false;
};
const FormatRules& RulesOf(SegmentFormat format);

// Looks at up to the first 29 bytes of a segment. A walcut header is recognised by its
// magic alone (a header with that magic and damage elsewhere is walcut's to report), an
// Ignite header by its type byte and magic.
SegmentProbe ProbeSegment(std::string_view first_bytes);

}  // namespace wal
