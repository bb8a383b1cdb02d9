#include <memory>

#include "tools/command.h"
#include "tools/gaps.h"

namespace tools {

void RegisterGaps(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<GapsOptions>();
  auto common = std::make_shared<CommonFlags>();
  CLI::App* sub = app.add_subcommand("gaps", "Find partition update-counter gaps, and close them with RollbackRecords");
  sub->add_option("DIR", o->paths,
                  "A cluster directory, node directories, or Apache Ignite work or snapshot directories (one per node)")
      ->required();
  AddCommonFlags(sub, common.get());
  sub->add_flag("--close", o->close, "Append RollbackRecords for the gaps that may be closed, and print them");
  sub->add_flag("--dry-run", o->dry_run, "With --close: print the records that would be written, change nothing");
  sub->add_flag("--finalize", o->finalize,
                "The node is finalizing its partitions: close gaps of unfinished and unowned reservations too");
  sub->callback([o, common, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (o->dry_run && !o->close) throw CLI::ValidationError("--dry-run goes with --close");
    ctx.run = [o, &ctx] {
      if (o->close && !o->dry_run) o->cancellable = [&ctx] { return ctx.Cancellable(); };
      return RunGaps(*o, *ctx.output);
    };
  });
}

}  // namespace tools
