#include "recovery/counter_tracker.h"

#include <algorithm>

#include <fmt/format.h>

namespace recovery {

wal::Status CounterTracker::Update(uint64_t start, uint64_t delta) {
  if (delta == 0) return wal::Status::Ok();
  const uint64_t end = start + delta;
  if (start < lwm_) {
    return wal::Status::AlreadyExists(
        fmt::format("counters ({}, {}] overlap the applied prefix (LWM {})", start, end, lwm_));
  }
  // The first range that ends after `start` must begin at or after `end`.
  auto next = ranges_.upper_bound(start);
  if (next != ranges_.begin()) {
    auto prev = std::prev(next);
    if (prev->second > start) {
      return wal::Status::AlreadyExists(
          fmt::format("counters ({}, {}] overlap applied range ({}, {}]", start, end, prev->first, prev->second));
    }
  }
  if (next != ranges_.end() && next->first < end) {
    return wal::Status::AlreadyExists(
        fmt::format("counters ({}, {}] overlap applied range ({}, {}]", start, end, next->first, next->second));
  }
  if (end > hwm_) hwm_ = end;
  if (start == lwm_) {
    lwm_ = end;
    // Ranges that now touch the prefix join it.
    auto it = ranges_.begin();
    while (it != ranges_.end() && it->first == lwm_) {
      lwm_ = it->second;
      it = ranges_.erase(it);
    }
    return wal::Status::Ok();
  }
  uint64_t new_start = start, new_end = end;
  bool merge_prev = false;
  auto prev = next == ranges_.begin() ? ranges_.end() : std::prev(next);
  if (prev != ranges_.end() && prev->second == start) merge_prev = true;
  bool merge_next = next != ranges_.end() && next->first == end;
  if (!merge_prev && !merge_next && ranges_.size() >= max_ranges_) {
    return wal::Status::NotSupported(
        fmt::format("too many gaps: {} out-of-order counter ranges are open (the bound)", max_ranges_));
  }
  if (merge_next) {
    new_end = next->second;
    ranges_.erase(next);
  }
  if (merge_prev) {
    prev->second = new_end;
  } else {
    ranges_.emplace(new_start, new_end);
  }
  return wal::Status::Ok();
}

void CounterTracker::AdvanceLwm(uint64_t lwm) {
  if (lwm <= lwm_) return;
  lwm_ = lwm;
  if (hwm_ < lwm_) hwm_ = lwm_;
  auto it = ranges_.begin();
  while (it != ranges_.end() && it->first <= lwm_) {
    lwm_ = std::max(lwm_, it->second);
    it = ranges_.erase(it);
  }
}

std::vector<Gap> CounterTracker::Gaps() const {
  std::vector<Gap> gaps;
  uint64_t at = lwm_;
  for (const auto& [s, e] : ranges_) {
    if (s > at) gaps.push_back({at + 1, s});
    at = e;
  }
  if (hwm_ > at) gaps.push_back({at + 1, hwm_});
  return gaps;
}

std::vector<Gap> CounterTracker::Finalize() {
  std::vector<Gap> gaps = Gaps();
  ranges_.clear();
  lwm_ = hwm_;
  return gaps;
}

}  // namespace recovery
