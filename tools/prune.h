// `walcut prune`: retention of a cluster's WAL. Which sealed segment files no kept
// increment still needs, printed; with --apply, removed (or moved) oldest first, so that
// what is left is always a whole WAL from some segment on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tools/cut_sources.h"
#include "tools/output.h"

namespace tools {

struct PruneOptions {
  std::string dir;
  // The policy: which cuts are kept (at most one; none keeps every restorable cut).
  std::optional<uint32_t> keep_increments;  // the N latest restorable cuts, and every cut after
  std::string keep_base;                    // the cuts of this base, and every cut after
  std::string before;                       // this cut (an id or a unique prefix), and every cut after
  bool apply = false;
  std::string move_to;  // with --apply: move the files here (DIR/<node>/) instead of removing them
  bool force = false;   // apply even when no restorable cut would be left, or a node has problems
  bool json = false;
  bool quiet = false;
  // Called when --apply starts changing files: from then on SIGINT/SIGTERM set the flag
  // it returns, polled between files.
  std::function<const std::atomic<bool>*()> cancellable;
};

int RunPrune(const PruneOptions& options, Output& output);

}  // namespace tools
