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
  AddLocalFlag(sub);
  sub->add_option("--summary", o->summary_out,
                  "Write this node's cut index to FILE (for check --summaries) instead of listing");
  auto format = std::make_shared<std::string>("binary");
  sub->add_option("--summary-format", *format,
                  "With --summary: binary (compact, checksummed; the default) or json (for reading)")
      ->check(CLI::IsMember({"binary", "json"}));
  sub->add_flag("--append", o->append,
                "With --summary: read only the WAL written since FILE (kept in FILE.resume), and update FILE");
  auto cut = std::make_shared<std::string>();
  auto axis = std::make_shared<std::string>("time");
  auto from = std::make_shared<double>(-1), to = std::make_shared<double>(-1);
  sub->add_option("--svg", o->svg_out, "Also draw the timeline of one cut as an SVG picture in FILE");
  sub->add_option("--cut", *cut, "With --svg: the cut to draw (default: the latest consistent cut)");
  sub->add_option("--axis", *axis, "With --svg: x axis by simulated time or by WAL order (offset)")
      ->check(CLI::IsMember({"time", "offset"}));
  AddReal(sub, "--from", from.get(), 0, 1e12, "With --svg: start of the view, in seconds");
  AddReal(sub, "--to", to.get(), 0, 1e12, "With --svg: end of the view, in seconds");
  sub->callback([o, common, format, cut, axis, from, to, &ctx] {
    o->summary_json = *format == "json";
    if (o->append && o->summary_out.empty()) throw CLI::ValidationError("--append goes with --summary FILE");
    o->json = common->json;
    o->quiet = common->quiet;
    if (!cut->empty()) o->cut = *cut;
    o->axis_offset = *axis == "offset";
    if (*from >= 0) o->from = *from;
    if (*to >= 0) o->to = *to;
    ctx.run = [o, &ctx] { return RunCuts(*o, *ctx.output); };
  });
}

}  // namespace tools
