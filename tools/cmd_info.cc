#include <memory>

#include "tools/command.h"
#include "tools/info.h"

namespace tools {

void RegisterInfo(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<InfoOptions>();
  auto common = std::make_shared<CommonFlags>();
  CLI::App* sub =
      app.add_subcommand("info", "What can be restored, and from what: snapshots, increments, their status and size");
  sub->add_option("DIR", o->paths,
                  "A cluster directory, node directories, or Apache Ignite's work or snapshot directories")
      ->required();
  AddCommonFlags(sub, common.get());
  AddLocalFlag(sub);
  sub->callback([o, common, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    ctx.run = [o, &ctx] { return RunInfo(*o, *ctx.output); };
  });
}

}  // namespace tools
