#include "tools/data_rows.h"

#include <iterator>

#include "tools/json_writer.h"

namespace tools {
namespace {

void CsvField(std::string_view s, fmt::memory_buffer* out) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

void AppendCsvHeader(fmt::memory_buffer* out) {
  out->append(std::string_view("node,cache,cache_name,partition,key,value,counter\n"));
}

void AppendCsvRow(const DataRow& r, fmt::memory_buffer* out) {
  auto it = std::back_inserter(*out);
  CsvField(r.node, out);
  fmt::format_to(it, ",{},", r.cache);
  CsvField(r.cache_name, out);
  fmt::format_to(it, ",{},", r.partition);
  CsvField(r.key, out);
  out->push_back(',');
  CsvField(r.value, out);
  fmt::format_to(it, ",{}\n", r.counter);
}

void AppendJsonlRow(const DataRow& r, fmt::memory_buffer* out) {
  JsonWriter j(out);
  j.BeginObject().Field("node", r.node).Field("cache", r.cache);
  if (!r.cache_name.empty()) j.Field("cache_name", r.cache_name);
  j.Field("partition", r.partition).Field("key", r.key);
  if (!r.key_class.empty()) j.Field("key_class", r.key_class);
  j.Field("value", r.value);
  if (!r.value_class.empty()) j.Field("value_class", r.value_class);
  j.Field("counter", r.counter).EndObject();
  out->push_back('\n');
}

}  // namespace tools
