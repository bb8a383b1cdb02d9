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
// rules rather than branch on the format, so a format with the same habits (a later
// Ignite version's) is a codec and a row of rules, not new branches.
struct FormatRules {
  // Where a segment's data ends, and so what a frame that does not verify means there
  // (WalReader::HandleBadFrame).
  enum class DataEnd : uint8_t {
    // walcut's: at the last sound frame of the last segment, past which a write cut short
    // leaves zeros or a checksum never written; a segment that is not the last ends with a
    // SWITCH_SEGMENT_RECORD, and bytes after it are damage.
    kTornWrite,
    // Ignite's (AbstractWalRecordsIterator): at a type byte 0, at a frame that names
    // another segment (a reused work file's older contents) or at the end of the file; a
    // segment filled to its last byte has no SWITCH_SEGMENT_RECORD, and what follows one
    // is an older segment's.
    kEndMark,
  };
  DataEnd data_end = DataEnd::kTornWrite;
  // A DATA_RECORD_V2 entry whose near version is null is a write of no transaction that
  // may come anywhere in a node's WAL: Ignite's update of an ATOMIC cache, or a
  // rebalance's (flag PRELOAD). In walcut's format, entries of the null id are the
  // initial load, which precedes the first full snapshot and is out of order after it.
  bool writes_without_transaction = false;
  // Snapshot and cut records carry no time (Ignite's): the latest time of the node's records
  // before one stands for it.
  bool cut_records_untimed = false;
  // A transaction's COMMITTED record may come after cut records written since its last
  // data entry on the node (Ignite logs it when the state changes): the commit is placed
  // at that entry (libcut/commit_place.h). In walcut's format the record is the place.
  bool commit_placed_at_entries = false;
  // A ROLLED_BACK record may come with no role of the transaction open on the node
  // (Ignite logs the rollback of a transaction never prepared there).
  bool rollback_without_prepare = false;
  // The Finish record's sets as Ignite's cut fills them (libcut/window_classifier.h): a
  // transaction listed After may commit a second role after the record, and one listed
  // Before may have committed before the Start record.
  bool finish_sets_watch_commits = false;
  // Entries carry the partition update counters by which an increment's restore applies
  // them (Ignite's IncrementalSnapshotProcessor): the check compares each partition's
  // copies by what they apply (libcut/copy_counters.h).
  bool copies_by_update_counters = false;
  // Keys are cache objects (a type and its bytes; wal::CacheObjectText spells them), not
  // walcut's byte strings.
  bool cache_object_keys = false;
};
inline constexpr FormatRules kWalcutRules{};
inline constexpr FormatRules kIgniteRules{.data_end = FormatRules::DataEnd::kEndMark,
                                          .writes_without_transaction = true,
                                          .cut_records_untimed = true,
                                          .commit_placed_at_entries = true,
                                          .rollback_without_prepare = true,
                                          .finish_sets_watch_commits = true,
                                          .copies_by_update_counters = true,
                                          .cache_object_keys = true};
inline const FormatRules& RulesOf(SegmentFormat format) { return IsIgnite(format) ? kIgniteRules : kWalcutRules; }

// Looks at up to the first 29 bytes of a segment. A walcut header is recognised by its
// magic alone (a header with that magic and damage elsewhere is walcut's to report), an
// Ignite header by its type byte and magic.
SegmentProbe ProbeSegment(std::string_view first_bytes);

}  // namespace wal
