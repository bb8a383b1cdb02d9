// Points in time on the command line (`restore --time`, `dump --since/--until`): seconds
// of the cluster's clock, an ISO 8601 date and time, or a time back from the latest one
// the WALs hold. The clock of walcut's WALs counts nanoseconds; the simulator's starts at
// 0, which is the Unix epoch (1970-01-01T00:00:00Z) in ISO 8601.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tools {

struct TimeTarget {
  bool relative = false;  // "-3h": `back` before the latest time the WALs hold
  uint64_t at = 0;        // nanoseconds since the epoch, when not relative
  uint64_t back = 0;      // nanoseconds, when relative
  std::string text;       // as given
};

// Accepts
//   SECONDS                        a decimal number (up to nine decimals): 0.5
//   YYYY-MM-DD[THH:MM[:SS[.F]]][Z|+HH:MM|-HH:MM]   ISO 8601 (UTC unless an offset is
//                                  given; a space may stand for the T)
//   -N[ms|s|m|h|d]...              back from the latest time: -3h, -1h30m, -500ms
// False, with why in *why, for anything else or a time before the epoch.
bool ParseTimeTarget(std::string_view text, TimeTarget* out, std::string* why);

// The nanoseconds `t` stands for, given the latest time the WALs hold.
uint64_t ResolveTime(const TimeTarget& t, uint64_t latest);

// "1970-01-01T00:00:00.567331394Z".
std::string FormatIsoTime(uint64_t ns);

}  // namespace tools
