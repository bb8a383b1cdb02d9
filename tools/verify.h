// `walcut verify`: every copy of each partition agrees (and matches restore.json).
#pragma once

#include <string>
#include <vector>

#include "tools/output.h"

namespace tools {

struct VerifyOptions {
  std::vector<std::string> dirs;         // one of walcut's; Apache Ignite's page stores, several
  std::string snapshot;                  // Ignite: the full snapshot a work directory holds
  unsigned jobs = 0;                     // Ignite: threads reading files (0: one per core)
  std::vector<std::string> cache_names;  // --cache: only these caches (Ignite: their groups)
  bool json = false;
  bool quiet = false;
};

int RunVerify(const VerifyOptions& options, Output& output);
// The same of Apache Ignite's page files: a full snapshot as `control.sh --snapshot
// check` checks it, or stopped nodes' own stores.
int RunIgniteVerify(const VerifyOptions& options, Output& output);

}  // namespace tools
