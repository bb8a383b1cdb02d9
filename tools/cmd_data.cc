#include <memory>

#include "tools/command.h"
#include "tools/data.h"

namespace tools {

void RegisterData(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<DataOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto partition = std::make_shared<int64_t>(-1);
  CLI::App* sub = app.add_subcommand(
      "data", "Print partition data: walcut's files, or Apache Ignite's page files (a full snapshot, a stopped node)");
  sub->add_option("DIR", o->paths,
                  "A cluster, restored, node or data directory; of Apache Ignite, snapshot or work directories "
                  "(several)")
      ->required();
  AddCommonFlags(sub, common.get());
  sub->add_option("--node", o->nodes, "Only this node (repeatable)")
      ->allow_extra_args(false);  // one value each time: DIR may follow
  sub->add_option("--snapshot", o->snapshot, "Ignite: the full snapshot NAME of the work directories given");
  sub->add_option("--cache", o->caches, "Only this cache, by name or id (repeatable)")
      ->allow_extra_args(false);  // one value each time: DIR may follow
  AddWhole(sub, "--partition", partition.get(), 0, UINT32_MAX, "Only partition P");
  sub->add_flag("--summary", o->summary, "One line per partition file, without the entries");
  auto format = std::make_shared<std::string>("text");
  sub->add_option("--format", *format,
                  "text, json (as --json), or one row per key: jsonl (JSON Lines) or csv (with a header)")
      ->check(CLI::IsMember({"text", "json", "jsonl", "csv"}));
  sub->callback([o, common, partition, format, &ctx] {
    if (common->json && *format != "text" && *format != "json") {
      throw CLI::ValidationError("--json", "prints --format json; it goes with no other --format");
    }
    o->format = common->json || *format == "json" ? DataFormat::kJson
                : *format == "jsonl"              ? DataFormat::kJsonl
                : *format == "csv"                ? DataFormat::kCsv
                                                  : DataFormat::kText;
    if (o->Rows() && o->summary) throw CLI::ValidationError("--summary", "has no rows to print as " + *format);
    common->json = o->format == DataFormat::kJson;
    o->json = common->json;
    o->quiet = common->quiet;
    if (*partition >= 0) o->partition = static_cast<uint32_t>(*partition);
    ctx.run = [o, &ctx] { return RunData(*o, *ctx.output); };
  });
}

}  // namespace tools
