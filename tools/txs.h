// `walcut txs`: the cluster-wide transaction table, read from every node's WAL.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct TxsOptions {
  std::vector<std::string> paths;    // a cluster directory, node directories, Ignite work or snapshot directories
  std::optional<std::string> tx;     // one transaction (T.N.O)
  std::optional<std::string> state;  // PREPARED, COMMITTED, ROLLED_BACK, UNKNOWN, missing
  bool in_doubt = false;
  bool json = false;
  bool quiet = false;
};

int RunTxs(const TxsOptions& options, Output& output);

}  // namespace tools
