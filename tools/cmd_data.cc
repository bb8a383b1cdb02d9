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
  sub->add_option("--node", o->nodes, "Only this node (repeatable)");
  sub->add_option("--snapshot", o->snapshot, "Ignite: the full snapshot NAME of the work directories given");
  sub->add_option("--cache", o->caches, "Only this cache, by name or id (repeatable)");
  AddWhole(sub, "--partition", partition.get(), 0, UINT32_MAX, "Only partition P");
  sub->add_flag("--summary", o->summary, "One line per partition file, without the entries");
  sub->callback([o, common, partition, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (*partition >= 0) o->partition = static_cast<uint32_t>(*partition);
    ctx.run = [o, &ctx] { return RunData(*o, *ctx.output); };
  });
}

}  // namespace tools
