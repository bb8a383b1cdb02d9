// `walcut verify`: every copy of each partition agrees (and matches restore.json).
#pragma once

#include <string>

#include "tools/output.h"

namespace tools {

struct VerifyOptions {
  std::string dir;
  bool json = false;
  bool quiet = false;
};

int RunVerify(const VerifyOptions& options, Output& output);

}  // namespace tools
