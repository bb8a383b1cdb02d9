#include <memory>
#include <optional>
#include <tuple>

#include "tools/command.h"
#include "tools/restore.h"

namespace tools {

void RegisterRestore(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<RestoreOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto cut = std::make_shared<std::string>();
  auto increment = std::make_shared<int64_t>(-1);
  auto time = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("restore", "Restore every node's data to a consistent cut");
  auto dirs = std::make_shared<std::vector<std::string>>();
  sub->add_option("DIR", *dirs,
                  "A cluster directory, or Apache Ignite's: work or snapshot directories, several, or a directory of "
                  "them")
      ->required();
  AddCommonFlags(sub, common.get());
  sub->add_option("-o,--output", o->out, "Restored directory to create (must not exist or be empty)");
  auto* c = sub->add_option("--cut", *cut, "The cut to restore (an id or a unique prefix)");
  auto* i = AddWhole(sub, "--increment", increment.get(), 1, UINT32_MAX,
                     "The consistent cut that is increment N of the latest base (or of --snapshot)");
  auto* l = sub->add_flag("--latest", o->latest, "The latest consistent cut");
  auto* t = sub->add_option("--time", *time,
                            "The latest consistent cut finished at or before T: seconds, an ISO 8601 time, or back "
                            "from the WALs' latest time (-3h)")
                ->type_name("T");
  auto* snap = sub->add_option("--snapshot", o->snapshot,
                               "Only the increments of this base snapshot (with --increment, --latest or --time)")
                   ->type_name("NAME");
  snap->excludes(c);
  c->excludes(i)->excludes(l)->excludes(t);
  i->excludes(l)->excludes(t);
  l->excludes(t);
  sub->add_option("--node", o->nodes, "Restore only this node (repeatable)")
      ->allow_extra_args(false);  // one value each time: DIR may follow
  auto partitions = std::make_shared<std::vector<std::string>>();
  sub->add_option("--cache", o->cache_names, "Restore only this cache, by name or id (repeatable)")
      ->type_name("CACHE")
      ->allow_extra_args(false);  // one value each time: DIR may follow
  sub->add_option("--partition", *partitions, "Restore only this partition, of every cache restored (repeatable)")
      ->type_name("P")
      ->allow_extra_args(false);  // one value each time: DIR may follow
  AddWhole(sub, "--jobs", &o->jobs, 1, 256,
           "Threads: reading the WALs, then nodes restored at once (default: one per core)");
  sub->add_flag("--dry-run", o->dry_run, "Print the plan and write nothing");
  sub->add_flag("--force", o->force,
                "Keep the output even when its copies do not all agree (marked so in restore.json)");
  sub->callback([o, dirs, common, cut, increment, time, partitions, &ctx] {
    o->dir = dirs->front();
    o->more_dirs.assign(dirs->begin() + 1, dirs->end());
    for (auto [flag, texts, out] : {std::make_tuple("--partition", partitions.get(), &o->partitions)}) {
      for (const auto& text : *texts) {
        uint64_t v = 0;
        if (!ParseWhole(text, 0, UINT32_MAX, &v)) {
          throw CLI::ValidationError(flag, fmt::format("\"{}\" is not a whole number from 0 to {}", text, UINT32_MAX));
        }
        out->push_back(static_cast<uint32_t>(v));
      }
    }
    o->json = common->json;
    o->quiet = common->quiet;
    if (!cut->empty()) o->cut = *cut;
    if (*increment >= 0) o->increment = static_cast<uint32_t>(*increment);
    if (!time->empty()) {
      TimeTarget target;
      std::string why;
      if (!ParseTimeTarget(*time, &target, &why)) throw CLI::ValidationError("--time", "\"" + *time + "\": " + why);
      o->time = target;
    }
    if (!o->cut && !o->increment && !o->latest && !o->time) {
      throw CLI::ValidationError(o->snapshot.empty() ? "choose the cut: --cut ID, --increment N, --latest or --time T"
                                                     : "--snapshot NAME goes with --increment N, --latest or --time T");
    }
    if (o->out.empty() && !o->dry_run) throw CLI::ValidationError("-o OUT is required (or --dry-run)");
    ctx.run = [o, &ctx] {
      if (!o->dry_run) o->cancellable = [&ctx] { return ctx.Cancellable(); };
      return RunRestore(*o, *ctx.output);
    };
  });
}

}  // namespace tools
