#include "libcut/violation.h"

namespace cut {
namespace {

struct KindRow {
  Kind kind;
  const char* name;
  const char* rule;
};

// In the order of Kind.
constexpr KindRow kKinds[] = {
    {Kind::kFinishBeforeStart, "finish-before-start", "a node's Finish record of a cut follows its Start record"},
    {Kind::kDuplicateRecord, "duplicate-record", "a node writes one Start and one Finish record per cut"},
    {Kind::kDuplicateEntry, "duplicate-entry", "a Finish record lists a transaction at most once per set"},
    {Kind::kBothSets, "both-sets", "a Finish record lists a transaction in one set only"},
    {Kind::kListedNotCommitted, "listed-not-committed",
     "a transaction a Finish record lists is committed on that node in the cut's window"},
    {Kind::kListedAfterFinish, "listed-after-finish",
     "a transaction a Finish record lists is committed before that record"},
    {Kind::kBeforeOutsideRange, "before-outside-range",
     "a transaction listed Before is committed between the node's Start and Finish records"},
    {Kind::kSideSplit, "side-split", "a transaction's commits on one node are on one side of the cut"},
    {Kind::kKeyOrder, "key-order", "per key, every Before write precedes every After write"},
    {Kind::kFinishWithoutStart, "finish-without-start",
     "a node that writes a cut's Finish record wrote its Start record before it"},
    {Kind::kFinishAfterNextStart, "finish-after-next-start", "a node finishes a cut before it starts the next one"},
    {Kind::kMissingStart, "missing-start", "every baseline node writes the cut's Start record"},
    {Kind::kMissingFinish, "missing-finish", "every baseline node writes the cut's Finish record"},
    {Kind::kSideMismatch, "side-mismatch", "a transaction is on the same side of the cut on every node"},
    {Kind::kBeforeMissingOnParticipant, "before-missing-on-participant",
     "a Before transaction in flight at the Start is committed near the cut on every participant"},
    {Kind::kNotNested, "not-nested", "the Before side of an increment contains that of the increment before it"},
    {Kind::kBaseMismatch, "base-mismatch", "a cut is an increment of the same full snapshot on every node"},
    {Kind::kNotKept, "not-kept", "Apache Ignite keeps an increment it completed on every baseline node (its .smf)"},
    {Kind::kUnreadableWal, "unreadable-wal", "the WAL of every baseline node can be read"},
    {Kind::kForeignWal, "foreign-wal", "a node's WAL was written by that node"},
    {Kind::kWalMissesBase, "wal-misses-base", "a baseline node's WAL reaches back to the cut's base snapshot"},
    {Kind::kRecordsLost, "records-lost", "a baseline node that never left has the records of a cut that is over"},
    {Kind::kUnreadableMeta, "unreadable-metadata",
     "the increments' metadata (Apache Ignite's .smf) of every node can be read"},
    {Kind::kReadErrors, "read-errors", "a node's WAL reads without damage"},
    {Kind::kNotGiven, "not-given", "every server of the cluster file is given"},
    {Kind::kTornTransaction, "torn-transaction",
     "a transaction with entries before a node's Start record and after it is listed in a set of the Finish record"},
    {Kind::kCopiesDiffer, "copies-differ",
     "every copy of a partition applies the same updates (by update counter) from the full snapshot to the increment"},
};
static_assert(sizeof(kKinds) / sizeof(kKinds[0]) == kKindCount, "one row per kind");

constexpr bool RowsInOrder() {
  for (int i = 0; i < kKindCount; ++i) {
    if (static_cast<int>(kKinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(RowsInOrder(), "rows in the order of Kind");

}  // namespace

const char* KindName(Kind kind) { return kKinds[static_cast<int>(kind)].name; }
const char* KindRule(Kind kind) { return kKinds[static_cast<int>(kind)].rule; }

std::optional<Kind> ParseKind(std::string_view name) {
  for (const auto& row : kKinds) {
    if (name == row.name) return row.kind;
  }
  return std::nullopt;
}

bool IsLocalKind(Kind kind) { return kind <= Kind::kFinishAfterNextStart || kind == Kind::kTornTransaction; }

}  // namespace cut
