// `walcut diff`: what restoring one consistent cut instead of another would change — the
// transactions on the Before side of one and not the other, on each node, and the keys
// they wrote.
#pragma once

#include <string>

#include "tools/output.h"

namespace tools {

struct DiffOptions {
  std::string dir;
  std::string a, b;  // cut ids or unique prefixes
  bool json = false;
  bool quiet = false;
};

int RunDiff(const DiffOptions& options, Output& output);

}  // namespace tools
