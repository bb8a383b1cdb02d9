#include "tools/data.h"

#include <algorithm>
#include <iterator>

#include "recovery/partition_file.h"
#include "tools/data_dirs.h"
#include "tools/escape.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

void PartitionJson(const recovery::PartitionFile& f, bool summary, JsonWriter& j) {
  j.BeginObject().Field("cache", f.cache_id).Field("partition", f.partition).Field("counter", f.lwm);
  j.Field("lwm", f.lwm).Field("hwm", f.hwm).Field("hash", fmt::format("0x{:016x}", recovery::ContentHash(f)));
  j.Key("entries").BeginArray();
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    j.BeginObject().Field("key", e.key).Field("value", e.value).Field("counter", e.counter).EndObject();
  }
  j.EndArray().EndObject();
}

void PartitionText(const std::string& node, const recovery::PartitionFile& f, bool summary, fmt::memory_buffer* b) {
  auto it = std::back_inserter(*b);
  fmt::format_to(it, "{} cache {} partition {} counter {} lwm {} hwm {} entries {} hash 0x{:016x}\n", node, f.cache_id,
                 f.partition, f.lwm, f.lwm, f.hwm, f.entries.size(), recovery::ContentHash(f));
  for (size_t i = 0; i < f.entries.size() && !summary; ++i) {
    const auto& e = f.entries[i];
    b->append(std::string_view("  "));
    AppendQuoted(b, e.key);
    b->append(std::string_view(" = "));
    AppendQuoted(b, e.value);
    fmt::format_to(it, " counter {}\n", e.counter);
  }
}

}  // namespace

int RunData(const DataOptions& o, Output& output) {
  auto dirs = ResolveDataDirs(o.path);
  if (!dirs.ok()) {
    output.Error("{}", dirs.status().message());
    return kExitUnreadable;
  }
  for (const auto& want : o.nodes) {
    if (std::none_of(dirs->begin(), dirs->end(), [&](const DataDir& d) { return d.node == want; })) {
      output.Error("no node \"{}\" in \"{}\"", want, o.path);
      return kExitUsage;
    }
  }
  bool damaged = false;
  fmt::memory_buffer b;
  JsonWriter j(&b);
  if (o.json) j.BeginObject().Field("schema", 1).Key("nodes").BeginArray();
  for (const auto& d : *dirs) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), d.node) == o.nodes.end()) continue;
    if (o.json) j.BeginObject().Field("node", d.node).Key("partitions").BeginArray();
    for (const auto& path : d.files) {
      auto f = recovery::ReadPartitionFile(path);
      if (!f.ok()) {
        output.Error("{}", f.status().message());
        damaged = true;
        continue;
      }
      if (o.partition && f->partition != *o.partition) continue;
      if (o.json) {
        PartitionJson(*f, o.summary, j);
      } else if (!o.quiet) {
        PartitionText(d.node, *f, o.summary, &b);
      }
      if (b.size() > (1 << 20) && !o.quiet) {
        output.out->Write(std::string_view(b.data(), b.size()));
        b.clear();
      }
    }
    if (o.json) j.EndArray().EndObject();
  }
  if (o.json) {
    j.EndArray().EndObject();
    b.push_back('\n');
  }
  if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
  return damaged ? kExitProblems : kExitOk;
}

}  // namespace tools
