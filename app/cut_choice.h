// Which cut of a report the user named: the one whose id begins with what was given (in
// any case), as `check --cut`, `restore --cut`, `diff` and `prune --before` take it.
#pragma once

#include <cstddef>
#include <string>

#include "libcut/cluster_check.h"
#include "libwal/status.h"

namespace app {

// The index in report.cuts of the one cut whose id begins with `prefix`: kNotFound when no
// id does, kInvalidArgument when several do.
wal::Result<size_t> ChooseCut(const cut::ClusterReport& report, const std::string& prefix);

}  // namespace app
