#include <memory>

#include "tools/command.h"
#include "tools/verify.h"

namespace tools {

void RegisterVerify(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<VerifyOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto jobs = std::make_shared<int64_t>(0);
  CLI::App* sub =
      app.add_subcommand("verify",
                         "Check that every copy of each partition agrees (and matches restore.json); of Apache Ignite, "
                         "a full snapshot's page files as its snapshot check does");
  sub->add_option("DIR", o->dirs,
                  "A cluster or restored directory; of Apache Ignite, snapshot or work directories (several)")
      ->required();
  AddCommonFlags(sub, common.get());
  sub->add_option("--snapshot", o->snapshot, "Ignite: the full snapshot NAME of the work directories given");
  AddWhole(sub, "--jobs", jobs.get(), 0, 1024, "Ignite: threads reading page files (0: one per core)");
  sub->add_option("--cache", o->cache_names,
                  "Only the copies of this cache, by name or id (repeatable); of Ignite, its cache group's")
      ->allow_extra_args(false);
  sub->callback([o, common, jobs, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    o->jobs = static_cast<unsigned>(*jobs);
    ctx.run = [o, &ctx] { return RunVerify(*o, *ctx.output); };
  });
}

}  // namespace tools
