#include "tools/data.h"

#include <algorithm>
#include <iterator>

#include "recovery/partition_file.h"
#include "tools/data_dirs.h"
#include "tools/escape.h"

namespace tools {

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
  auto it = std::back_inserter(b);
  if (o.json) fmt::format_to(it, "{{\"schema\":1,\"nodes\":[");
  bool first_node = true;
  for (const auto& d : *dirs) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), d.node) == o.nodes.end()) continue;
    if (o.json) {
      fmt::format_to(it, "{}{{\"node\":", first_node ? "" : ",");
      AppendJsonString(&b, d.node);
      fmt::format_to(it, ",\"partitions\":[");
    }
    first_node = false;
    bool first_part = true;
    for (const auto& path : d.files) {
      auto f = recovery::ReadPartitionFile(path);
      if (!f.ok()) {
        output.Error("{}", f.status().message());
        damaged = true;
        continue;
      }
      if (o.partition && f->partition != *o.partition) continue;
      const uint64_t hash = recovery::ContentHash(*f);
      if (o.json) {
        fmt::format_to(it,
                       "{}{{\"cache\":{},\"partition\":{},\"counter\":{},\"lwm\":{},\"hwm\":{},"
                       "\"hash\":\"0x{:016x}\",\"entries\":[",
                       first_part ? "" : ",", f->cache_id, f->partition, f->lwm, f->lwm, f->hwm, hash);
        for (size_t i = 0; i < f->entries.size() && !o.summary; ++i) {
          const auto& e = f->entries[i];
          fmt::format_to(it, "{}{{\"key\":", i ? "," : "");
          AppendJsonString(&b, e.key);
          fmt::format_to(it, ",\"value\":");
          AppendJsonString(&b, e.value);
          fmt::format_to(it, ",\"counter\":{}}}", e.counter);
        }
        fmt::format_to(it, "]}}");
      } else if (!o.quiet) {
        fmt::format_to(it, "{} cache {} partition {} counter {} lwm {} hwm {} entries {} hash 0x{:016x}\n",
                       d.node, f->cache_id, f->partition, f->lwm, f->lwm, f->hwm, f->entries.size(), hash);
        for (size_t i = 0; i < f->entries.size() && !o.summary; ++i) {
          const auto& e = f->entries[i];
          b.append(std::string_view("  "));
          AppendQuoted(&b, e.key);
          b.append(std::string_view(" = "));
          AppendQuoted(&b, e.value);
          fmt::format_to(it, " counter {}\n", e.counter);
        }
      }
      first_part = false;
      if (b.size() > (1 << 20) && !o.quiet) {
        output.out->Write(std::string_view(b.data(), b.size()));
        b.clear();
      }
    }
    if (o.json) fmt::format_to(it, "]}}");
  }
  if (o.json) fmt::format_to(it, "]}}\n");
  if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
  return damaged ? kExitProblems : kExitOk;
}

}  // namespace tools
