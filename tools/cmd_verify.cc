#include <memory>

#include "tools/command.h"
#include "tools/verify.h"

namespace tools {

void RegisterVerify(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<VerifyOptions>();
  auto common = std::make_shared<CommonFlags>();
  CLI::App* sub = app.add_subcommand("verify", "Check that every copy of each partition agrees (and matches restore.json)");
  sub->add_option("DIR", o->dir, "A cluster or restored directory")->required();
  AddCommonFlags(sub, common.get());
  sub->callback([o, common, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    ctx.run = [o, &ctx] { return RunVerify(*o, *ctx.output); };
  });
}

}  // namespace tools
