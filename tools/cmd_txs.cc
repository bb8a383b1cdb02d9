#include <memory>

#include "tools/command.h"
#include "tools/txs.h"

namespace tools {

void RegisterTxs(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<TxsOptions>();
  auto common = std::make_shared<CommonFlags>();
  auto tx = std::make_shared<std::string>();
  auto state = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("txs", "The cluster-wide transaction table: each transaction on each participant");
  sub->add_option("DIR", o->paths,
                  "A cluster directory, node directories, or Apache Ignite work or snapshot directories (one per node)")
      ->required();
  AddCommonFlags(sub, common.get());
  AddLocalFlag(sub);
  sub->add_option("--tx", *tx, "Only this transaction (T.N.O)");
  sub->add_option("--state", *state,
                  "Only transactions in this state on some node (PREPARED, COMMITTED, ROLLED_BACK, UNKNOWN, missing)")
      ->check(CLI::IsMember({"PREPARED", "COMMITTED", "ROLLED_BACK", "UNKNOWN", "missing"}, CLI::ignore_case));
  sub->add_flag(
      "--in-doubt", o->in_doubt,
      "Only transactions committed on some participants and not others, or prepared (or UNKNOWN) and never committed");
  sub->callback([o, common, tx, state, &ctx] {
    o->json = common->json;
    o->quiet = common->quiet;
    if (!tx->empty()) o->tx = *tx;
    if (!state->empty()) o->state = *state;
    ctx.run = [o, &ctx] { return RunTxs(*o, *ctx.output); };
  });
}

}  // namespace tools
