#include <memory>

#include "tools/command.h"
#include "tools/prune.h"

namespace tools {

void RegisterPrune(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<PruneOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto keep = std::make_shared<int64_t>(-1);
  CLI::App* sub = app.add_subcommand("prune", "Find the WAL segments no kept increment needs, and remove them");
  sub->add_option("DIR", o->dir, "A cluster directory, or Apache Ignite's WAL (report only)")->required();
  AddCommonFlags(sub, common.get());
  auto* k = AddWhole(sub, "--keep-increments", keep.get(), 1, UINT32_MAX,
                     "Keep the N latest restorable cuts (and every cut after the oldest of them)");
  auto* b = sub->add_option("--keep-base", o->keep_base, "Keep the cuts of this base snapshot, and every later cut")
                ->type_name("NAME");
  auto* c = sub->add_option("--before", o->before, "Keep this cut (an id or a unique prefix) and every later cut")
                ->type_name("CUT");
  k->excludes(b)->excludes(c);
  b->excludes(c);
  auto* a = sub->add_flag("--apply", o->apply, "Remove the files (oldest first); without it, only print them");
  sub->add_option("--move-to", o->move_to, "With --apply: move the files into DIR2/<node>/ instead of removing them")
      ->type_name("DIR2")
      ->needs(a);
  sub->add_flag("--force", o->force,
                "With --apply: go on when no restorable cut would be left, or when a node's WAL has problems");
  sub->callback([o, common, keep, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (*keep >= 0) o->keep_increments = static_cast<uint32_t>(*keep);
    if (o->force && !o->apply) throw CLI::ValidationError("--force goes with --apply");
    ctx.run = [o, &ctx] {
      if (o->apply) o->cancellable = [&ctx] { return ctx.Cancellable(); };
      return RunPrune(*o, *ctx.output);
    };
  });
}

}  // namespace tools
