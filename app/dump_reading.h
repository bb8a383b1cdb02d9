// `walcut dump`'s reading: every input's records, filtered (record_filter.h) and counted,
// handed to a DumpSink as they are found, on every core where the order of what is written
// allows it (several nodes counted side by side; one node cut into runs of segments). The
// sink prints; this file decides what is read, in which order, and what is counted.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/inputs.h"
#include "app/record_filter.h"
#include "libwal/binary_meta.h"
#include "libwal/ids.h"
#include "libwal/record.h"

namespace app {

// What `dump --stats` counts by: record type (the default), node, partition or cache.
enum class StatsBy { kType, kNode, kPartition, kCache };

// The reading's choices; the filters (types, tx, partition, caches resolved, key, cut,
// from) are the selection's.
struct DumpReading : RecordSelection {
  bool quiet = false;  // no records shown and no warnings
  bool stats = false;  // records counted, not shown
  StatsBy stats_by = StatsBy::kType;
  std::optional<wal::Pointer> to;  // exclusive
  // Record times (nanoseconds), both inclusive; a record without a time of its own has
  // the time of the record before it in its WAL.
  std::optional<uint64_t> since, until;
  std::optional<uint64_t> limit;
  bool follow = false;
  double follow_interval = 0.2;       // seconds between polls
  std::optional<double> follow_idle;  // stop after this long without new records
  bool verify = true;
  // `--stats` of one node whose segments take at least this many bytes: read in parts
  // side by side, one per core (tests lower it).
  uint64_t parts_min_bytes = uint64_t{64} << 20;
  // Set from outside (a signal handler) to end --follow.
  const std::atomic<bool>* stop = nullptr;
};

struct TypeCount {
  uint64_t count = 0;
  uint64_t bytes = 0;
};

// Of one partition (or cache): the data entries written to it, their key and value
// bytes, and the rollback records that name it.
struct PartitionCount {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t rollbacks = 0;
};

struct DumpTotals {
  std::array<TypeCount, 256> by_type{};
  std::map<std::string, TypeCount> by_node;                              // --stats=node
  std::map<std::pair<uint32_t, uint32_t>, PartitionCount> by_partition;  // --stats=partition|cache: (cache, partition)
  std::array<bool, 256> ignite{};  // a type id met in an Ignite segment: named as Ignite names it
  uint64_t records = 0;
  uint64_t shown = 0;
  uint64_t segments = 0;
  uint64_t errors = 0;
  uint64_t io_errors = 0;
  uint64_t torn_tails = 0;

  void Add(const DumpTotals& other);
};

// Where a reading puts what it finds. Parts read side by side each write to a part of
// their own (NewPart, called on the reading threads), joined into this sink in the order
// of the WAL (Join, called on one thread at a time).
class DumpSink {
 public:
  virtual ~DumpSink() = default;
  // A record that matched; `entries`, of a data record, the entries kept where not all
  // are (else null); `types`, the binary types of the record's input (or null).
  virtual void Record(const std::string& node, const wal::Record& rec, const std::vector<uint32_t>* entries,
                      const wal::BinaryTypes* types) = 0;
  virtual void Warning(const std::string& message) = 0;
  virtual void Error(const std::string& message) = 0;
  // False once the reader of the records went away (a closed pipe): the reading stops.
  virtual bool good() const = 0;
  virtual void Flush() = 0;
  virtual std::unique_ptr<DumpSink> NewPart() const = 0;
  virtual void Join(DumpSink& part) = 0;
};

// Reads every input once (or, with `follow`, until stopped or idle), handing `sink` each
// record shown and each problem met; the totals of what was read. What a thread throws
// (out of memory) is thrown here once every thread has stopped.
DumpTotals ReadForDump(const DumpReading& o, DumpSink& sink, std::vector<WalInput> inputs);

}  // namespace app
