#include <memory>
#include <optional>

#include "tools/check.h"
#include "tools/command.h"

namespace tools {

void RegisterCheck(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto cut = std::make_shared<std::optional<std::string>>();
  CLI::App* sub = app.add_subcommand("check", "Prove from the WALs that each cut is consistent across all nodes");
  sub->add_option("DIR", o->paths, "A cluster directory, or node directories");
  AddCommonFlags(sub, common.get());
  auto* c = sub->add_option("--cut", *cut, "Check only this cut (an id or a unique prefix)");
  auto increment = std::make_shared<int64_t>(-1);
  auto* i = AddWhole(sub, "--increment", increment.get(), 1, UINT32_MAX,
                     "Check only the cut that is increment N of the latest full snapshot (or of --snapshot); of "
                     "Apache Ignite, reading only the part of each WAL it needs");
  c->excludes(i);
  sub->add_option("--snapshot", o->snapshot, "The full snapshot of --increment")->type_name("NAME")->needs(i);
  sub->add_option("--summaries", o->summaries, "Check from node summary files (cuts --summary) instead of WALs");
  sub->add_option("--cluster", o->cluster_file,
                  "Take the cut baselines from this cluster.json (for node directories or summaries given one by one)");
  sub->callback([o, common, cut, increment, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (*increment >= 0) o->increment = static_cast<uint32_t>(*increment);
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
