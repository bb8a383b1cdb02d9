// A partition copy's update counter (Ignite's PartitionUpdateCounterTrackingImpl):
// LWM = every counter at or below it applied; HWM = highest reserved; the ranges applied
// out of order above LWM are kept until the ranges between them close. Shared by the
// simulator, `walcut gaps` and restore.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "libwal/status.h"

namespace recovery {

// Counters first..last (inclusive) that were reserved and never applied.
struct Gap {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t size() const { return last - first + 1; }
  bool operator==(const Gap&) const = default;
};

class CounterTracker {
 public:
  static constexpr size_t kDefaultMaxRanges = 10000;

  explicit CounterTracker(size_t max_ranges = kDefaultMaxRanges) : max_ranges_(max_ranges) {}
  CounterTracker(uint64_t lwm, uint64_t hwm, size_t max_ranges = kDefaultMaxRanges)
      : lwm_(lwm), hwm_(hwm < lwm ? lwm : hwm), max_ranges_(max_ranges) {}

  // Reserves `delta` counters at prepare (primary): returns the start, the range being
  // (start, start + delta].
  uint64_t Reserve(uint64_t delta) {
    uint64_t start = hwm_;
    hwm_ += delta;
    return start;
  }
  // A backup learns of a reservation (its prepare request).
  void RaiseHwm(uint64_t hwm) {
    if (hwm > hwm_) hwm_ = hwm;
  }

  // Marks counters (start, start + delta] applied, in any order. kAlreadyExists when any
  // of them was applied before (nothing changes then); kNotSupported when the number of
  // open ranges would pass the bound.
  wal::Status Update(uint64_t start, uint64_t delta);

  // Marks every counter up to `lwm` applied (a partition meta page's LWM): the ranges it
  // reaches join the prefix.
  void AdvanceLwm(uint64_t lwm);

  // Closes every gap below HWM (as a partition map exchange, or the end of a restore,
  // does): returns the gaps closed, in order; afterwards LWM == HWM.
  std::vector<Gap> Finalize();

  // The gaps that Finalize() would close, without closing them.
  std::vector<Gap> Gaps() const;

  uint64_t lwm() const { return lwm_; }
  uint64_t hwm() const { return hwm_; }
  size_t open_ranges() const { return ranges_.size(); }

 private:
  uint64_t lwm_ = 0;
  uint64_t hwm_ = 0;
  std::map<uint64_t, uint64_t> ranges_;  // applied (start, end] above LWM, disjoint, not adjacent
  size_t max_ranges_;
};

}  // namespace recovery
