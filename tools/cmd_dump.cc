#include <cctype>
#include <memory>
#include <tuple>

#include "libwal/ignite_record.h"
#include "libwal/record.h"
#include "tools/command.h"
#include "tools/dump.h"
#include "tools/json_writer.h"
#include "tools/time_target.h"

namespace tools {
namespace {

struct DumpArgs {
  DumpOptions options;
  CommonFlags common;
  std::vector<std::string> types;
  bool list_types = false;  // --type list
  std::string tx, key, cut, from, to, since, until, values = "show";
  std::string stats_by;  // --stats[=BY]
  int64_t partition = -1;
  int64_t limit = -1;
  double follow_idle = -1;
};

std::string Validate(DumpArgs& a) {
  DumpOptions& o = a.options;
  o.json = a.common.json;
  o.quiet = a.common.quiet;
  std::vector<std::string> errors;
  if (!a.stats_by.empty()) {  // "true" for --stats alone (CLI11's flag value)
    o.stats = true;
    if (a.stats_by == "node") {
      o.stats_by = DumpOptions::StatsBy::kNode;
    } else if (a.stats_by == "partition") {
      o.stats_by = DumpOptions::StatsBy::kPartition;
    } else if (a.stats_by == "cache") {
      o.stats_by = DumpOptions::StatsBy::kCache;
    } else if (a.stats_by != "true" && a.stats_by != "type") {
      errors.push_back(fmt::format("--stats: \"{}\" is not type, node, partition or cache (--stats=BY)", a.stats_by));
    }
  }
  if (a.types.size() == 1 && a.types[0] == "list") {
    a.list_types = true;
    return a.options.paths.empty() ? "" : "--type list lists the record type names and reads no PATH";
  }
  if (a.options.paths.empty()) errors.push_back("PATH is required");
  for (const auto& list : a.types) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      wal::RecordType t;
      uint8_t id = 0;
      if (!name.empty() && wal::ParseRecordType(name, &t)) {
        o.types.push_back(static_cast<uint8_t>(t));
      } else if (!name.empty() && wal::ParseIgniteRecordType(name, &id)) {
        o.types.push_back(id);  // a type of Apache Ignite's segments
      } else {
        errors.push_back(fmt::format("--type: unknown record type \"{}\"", name));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (!a.tx.empty()) {
    o.tx = wal::TxId::Parse(a.tx);
    if (!o.tx) errors.push_back(fmt::format("--tx: \"{}\" is not a transaction id (T.N.O)", a.tx));
  }
  if (!a.from.empty()) {
    o.from = wal::Pointer::Parse(a.from);
    if (!o.from) errors.push_back(fmt::format("--from: \"{}\" is not a pointer (SEG:OFF)", a.from));
  }
  for (auto [flag, text, out] :
       {std::make_tuple("--since", &a.since, &o.since), std::make_tuple("--until", &a.until, &o.until)}) {
    if (text->empty()) continue;
    TimeTarget t;
    std::string why;
    if (!ParseTimeTarget(*text, &t, &why)) {
      errors.push_back(fmt::format("{}: \"{}\": {}", flag, *text, why));
    } else if (t.relative) {
      errors.push_back(fmt::format("{}: \"{}\": dump takes seconds or an ISO 8601 time, not a time back", flag, *text));
    } else {
      *out = t.at;
    }
  }
  if (!a.to.empty()) {
    o.to = wal::Pointer::Parse(a.to);
    if (!o.to) errors.push_back(fmt::format("--to: \"{}\" is not a pointer (SEG:OFF)", a.to));
  }
  if (a.partition >= 0) o.partition = static_cast<uint32_t>(a.partition);
  if (a.limit >= 0) o.limit = static_cast<uint64_t>(a.limit);
  if (!a.key.empty()) o.key = a.key;
  if (!a.cut.empty()) {
    std::string lower = a.cut;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    o.cut = lower;
  }
  if (a.values == "show")
    o.values = ValuesMode::kShow;
  else if (a.values == "hide")
    o.values = ValuesMode::kHide;
  else if (a.values == "hash")
    o.values = ValuesMode::kHash;
  if (a.follow_idle >= 0) o.follow_idle = a.follow_idle;
  if (o.follow && o.stats) errors.push_back("--follow and --stats cannot be combined");
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : "\n") + e;
  return joined;
}

// --type list: the names --type takes, walcut's then Apache Ignite's.
int ListRecordTypes(bool json, Output& output) {
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  if (json) {
    JsonWriter j(&b);
    j.BeginObject().Field("schema", 1).Key("types").BeginArray();
    for (const auto& t : wal::RecordTypes()) {
      j.BeginObject()
          .Field("format", "walcut")
          .Field("id", t.id)
          .Field("name", t.name)
          .Field("alias", t.alias)
          .EndObject();
    }
    for (unsigned id = 0; id < 256; ++id) {
      const char* name = wal::IgniteRecordTypeName(static_cast<uint8_t>(id));
      if (name == nullptr || *name == '\0') continue;
      j.BeginObject().Field("format", "ignite").Field("id", id).Field("name", name).Key("alias").Null().EndObject();
    }
    j.EndArray().EndObject();
    b.push_back('\n');
  } else {
    for (const auto& t : wal::RecordTypes()) fmt::format_to(it, "walcut {:>3} {} {}\n", t.id, t.name, t.alias);
    for (unsigned id = 0; id < 256; ++id) {
      const char* name = wal::IgniteRecordTypeName(static_cast<uint8_t>(id));
      if (name != nullptr && *name != '\0') fmt::format_to(it, "ignite {:>3} {}\n", id, name);
    }
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

}  // namespace

void RegisterDump(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<DumpArgs>();
  CLI::App* sub = app.add_subcommand("dump", "Print the records of WAL segments");
  sub->add_option("PATH", args->options.paths,
                  "A segment file (.wal, .wal.lz4, or Apache Ignite's .wal and .wal.zip), a WAL "
                  "directory (walcut's wal/, or an Ignite WAL or archive folder), a node directory or a "
                  "cluster directory");
  AddCommonFlags(sub, &args->common);
  AddLocalFlag(sub);
  sub->add_flag("--stats", args->stats_by,
                "Print a table instead of records: by record type (count, bytes, share), or with "
                "--stats=node, =partition or =cache by that (data entries, bytes, rollbacks)");
  sub->add_option("--type", args->types,
                  "Only records of these types (NAME[,NAME]...; walcut's names and aliases, and Apache "
                  "Ignite's record type names); --type list prints them")
      ->allow_extra_args(false);  // one value each time: PATH may follow, and need not
  sub->add_option("--tx", args->tx, "Only records of this transaction (T.N.O)");
  AddWhole(sub, "--partition", &args->partition, 0, UINT32_MAX, "Only entries and rollbacks of partition P");
  sub->add_option("--cache", args->options.cache_wanted,
                  "Only entries and rollbacks of this cache, by name or id (repeatable); an Ignite cache by the "
                  "name its directories and configuration give it")
      ->allow_extra_args(false);
  sub->add_option("--key", args->key, "Only data entries with this key (an Ignite key as printed: 42, acct-7)");
  sub->add_option("--cut", args->cut, "Only cut records whose cut id starts with this (a whole id or a prefix)");
  sub->add_option("--from", args->from, "Start at this pointer (SEG:OFF)");
  sub->add_option("--to", args->to, "Stop before this pointer (SEG:OFF)");
  sub->add_option("--since", args->since,
                  "Only records of this time or later: seconds, or an ISO 8601 time (a record without a "
                  "time of its own has the time of the one before it)")
      ->type_name("T");
  sub->add_option("--until", args->until, "Only records of this time or earlier (as --since)")->type_name("T");
  AddWhole(sub, "--limit", &args->limit, 0, INT64_MAX, "Print at most N records (counted after filters)");
  sub->add_option("--values", args->values, "Show values, hide them, or print their XXH3 hash")
      ->check(CLI::IsMember({"show", "hide", "hash"}));
  sub->add_flag("--follow", args->options.follow, "Keep polling for new records until interrupted (Ctrl-C)");
  AddReal(sub, "--follow-interval", &args->options.follow_interval, 0.01, 60,
          "Seconds between polls in --follow mode (default 0.2)");
  AddReal(sub, "--follow-idle", &args->follow_idle, 0, 1e6,
          "In --follow mode, stop after this many seconds without new records");
  sub->add_flag(
      "--no-verify", [args](int64_t) { args->options.verify = false; }, "Do not verify record checksums");
  sub->callback([args, &ctx] {
    std::string errors = Validate(*args);
    if (!errors.empty()) throw CLI::ValidationError(errors);
    if (args->list_types) {
      ctx.run = [args, &ctx] { return ListRecordTypes(args->options.json, *ctx.output); };
      return;
    }
    if (args->options.follow) args->options.stop = ctx.Cancellable();
    ctx.run = [args, &ctx] { return RunDump(args->options, *ctx.output); };
  });
}

}  // namespace tools
