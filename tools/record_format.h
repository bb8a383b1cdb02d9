// How records look in `walcut dump`: one text line, or one JSON object, per record.
// Each record type has a text and a JSON describer in one table (pg_waldump's rmgr
// descriptions); a type this version does not know is printed by name and size.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "libwal/binary_meta.h"
#include "libwal/wal_reader.h"

namespace tools {

enum class ValuesMode { kShow, kHide, kHash };

struct RecordFormat {
  ValuesMode values = ValuesMode::kShow;
  // For DATA_RECORD_V2: the entries to print (all when null), so that a filter on key,
  // partition or transaction shows only the entries that matched.
  const std::vector<uint32_t>* entries = nullptr;
  // An Ignite node's binary metadata: the names of binary types and their fields.
  const wal::BinaryTypes* binary_types = nullptr;
  // The caches' names by id (cluster file, Ignite's directories), printed beside the ids.
  const std::map<uint32_t, std::string>* cache_names = nullptr;
  const std::string* CacheName(uint32_t id) const {
    if (cache_names == nullptr) return nullptr;
    auto it = cache_names->find(id);
    return it == cache_names->end() ? nullptr : &it->second;
  }
};

void AppendRecordText(std::string_view node, const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out);
void AppendRecordJson(std::string_view node, const wal::Record& r, const RecordFormat& f, fmt::memory_buffer* out);

// Nanoseconds of simulated time as seconds with nine decimals.
void AppendTimestamp(fmt::memory_buffer* out, uint64_t ns);

// Timestamps from here on are a wall clock's (nanoseconds since 1970, from 2001-09-09 on):
// Apache Ignite's; below, the simulator's seconds from its start.
inline constexpr uint64_t kWallClockFrom = 1'000'000'000'000'000'000;

// A time as a person reads it: a wall clock's (Apache Ignite's milliseconds since 1970, any
// time from 2001-09-09 on) in ISO 8601, UTC, to the millisecond when that is all it has; the
// simulator's time (seconds from its start) as AppendTimestamp writes it; 0, no time, as "-".
// With SetLocalTimes(true) (a command's --local), a wall clock's time is shown in the
// local time zone instead, with its offset (2026-12-06T08:46:55.404+01:00).
void AppendTime(fmt::memory_buffer* out, uint64_t ns);
void SetLocalTimes(bool local);

}  // namespace tools
