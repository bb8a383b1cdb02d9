#include <memory>
#include <optional>

#include "tools/command.h"
#include "tools/cuts.h"

namespace tools {

void RegisterCuts(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<CutsOptions>();
  auto common = std::make_shared<CommonFlags>();
  CLI::App* sub = app.add_subcommand("cuts", "List the consistent cuts (incremental snapshots) in the node WALs");
  sub->add_option("DIR", o->paths, "A cluster directory, or node directories")->required();
  AddCommonFlags(sub, common.get());
  sub->add_option("--summary", o->summary_out,
                  "Write this node's cut index to FILE (for check --summaries) instead of listing");
  sub->callback([o, common, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    ctx.run = [o, &ctx] { return RunCuts(*o, *ctx.output); };
  });
}

void RegisterCheck(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto cut = std::make_shared<std::optional<std::string>>();
  CLI::App* sub = app.add_subcommand("check", "Prove from the WALs that each cut is consistent across all nodes");
  sub->add_option("DIR", o->paths, "A cluster directory, or node directories");
  AddCommonFlags(sub, common.get());
  sub->add_option("--cut", *cut, "Check only this cut (an id or a unique prefix)");
  sub->add_option("--summaries", o->summaries, "Check from node summary files (cuts --summary) instead of WALs");
  sub->callback([o, common, cut, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (cut->has_value()) {
      if ((*cut)->empty()) throw CLI::ValidationError("--cut: give a cut id or a prefix of one");
      o->cut = **cut;
    }
    if (o->paths.empty() == o->summaries.empty()) {
      throw CLI::ValidationError("give either DIR or --summaries FILE..., not both or neither");
    }
    ctx.run = [o, &ctx] { return RunCheck(*o, *ctx.output); };
  });
}

}  // namespace tools
