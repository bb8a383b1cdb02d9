// `walcut data --format jsonl|csv`: one row per key, for loading a restore or a snapshot
// elsewhere (an Apache Ignite data streamer, a database's bulk load). Rows are appended to a
// buffer that the caller writes out as it fills, so memory stays that of one partition file.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace tools {

enum class DataFormat { kText, kJson, kJsonl, kCsv };

// One key's row. `cache` is printed as given (Ignite's ids signed); `name` and the classes
// may be empty (JSON Lines then leaves them out, CSV leaves the column empty).
struct DataRow {
  std::string_view node;
  int64_t cache = 0;
  std::string_view cache_name;
  uint32_t partition = 0;
  std::string_view key, value;
  std::string_view key_class, value_class;
  uint64_t counter = 0;
};

// CSV's first line: node,cache,cache_name,partition,key,value,counter.
void AppendCsvHeader(fmt::memory_buffer* out);
// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
void AppendCsvRow(const DataRow& r, fmt::memory_buffer* out);
// One JSON object and a newline.
void AppendJsonlRow(const DataRow& r, fmt::memory_buffer* out);

}  // namespace tools
