#include <memory>

#include "tools/command.h"
#include "tools/diff.h"

namespace tools {

void RegisterDiff(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<DiffOptions>();
  auto common = std::make_shared<CommonFlags>();
  CLI::App* sub = app.add_subcommand(
      "diff", "The transactions and keys on the Before side of one consistent cut and not of another");
  sub->add_option("DIR", o->dir, "A cluster directory, or Apache Ignite's WAL")->required();
  sub->add_option("CUT_A", o->a, "A consistent cut (an id or a unique prefix)")->required();
  sub->add_option("CUT_B", o->b, "Another consistent cut of the same base")->required();
  AddCommonFlags(sub, common.get());
  sub->callback([o, common, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    ctx.run = [o, &ctx] { return RunDiff(*o, *ctx.output); };
  });
}

}  // namespace tools
