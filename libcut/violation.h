// What can be wrong with a cut or a node, as one vocabulary: the kinds of violation the
// per-node index finds, those the cluster check finds, and a node's problems as a whole.
// Each kind has one row in one table: the name printed and parsed (summary files,
// --json) and a one-line statement of the rule it breaks. walcut-check(1) explains
// each under VIOLATIONS (a test holds the page and the table together).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cut {

enum class Kind : uint8_t {
  // Found on one node alone (cut_index.h).
  kFinishBeforeStart,
  kDuplicateRecord,
  kDuplicateEntry,
  kBothSets,
  kListedNotCommitted,
  kListedAfterFinish,
  kBeforeOutsideRange,
  kSideSplit,
  kKeyOrder,
  kFinishWithoutStart,
  kFinishAfterNextStart,
  // Found across the nodes of a cut (cluster_check.h).
  kMissingStart,
  kMissingFinish,
  kSideMismatch,
  kBeforeMissingOnParticipant,
  kNotNested,
  kBaseMismatch,
  kNotKept,
  // A baseline node the cut cannot be verified on.
  kUnreadableWal,
  kForeignWal,
  kWalMissesBase,
  kRecordsLost,
  kUnreadableMeta,
  // A node's problems as a whole (ClusterReport::problems).
  kReadErrors,
  kNotGiven,
  // Found on one node alone, added since: kinds are numbered in summary files, so a new
  // one comes last.
  kTornTransaction,
  // Found across the nodes of a cut, added since.
  kCopiesDiffer,
};
inline constexpr int kKindCount = static_cast<int>(Kind::kCopiesDiffer) + 1;

// "side-mismatch".
const char* KindName(Kind kind);
// The rule the kind breaks, in one line.
const char* KindRule(Kind kind);
std::optional<Kind> ParseKind(std::string_view name);
// Kinds reported by a node's own index (the only ones a summary file may carry).
bool IsLocalKind(Kind kind);

}  // namespace cut
