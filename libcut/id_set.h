// A small sorted set of transaction ids (a Finish record's Before or After set) asked
// about every commit of a window: a 256-bit filter answers most of the misses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "libcut/hash.h"
#include "libwal/ids.h"

namespace cut {

class IdSet {
 public:
  void Assign(std::vector<wal::TxId> ids) {
    ids_ = std::move(ids);
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    for (auto& w : filter_) w = 0;
    for (const auto& x : ids_) {
      const unsigned b = Bit(HashTxId(x));
      filter_[b >> 6] |= uint64_t{1} << (b & 63);
    }
  }
  // `h`: HashTxId(x).
  bool Contains(const wal::TxId& x, uint64_t h) const {
    const unsigned b = Bit(h);
    if ((filter_[b >> 6] >> (b & 63) & 1) == 0) return false;
    return std::binary_search(ids_.begin(), ids_.end(), x);
  }
  bool Contains(const wal::TxId& x) const { return Contains(x, HashTxId(x)); }
  const std::vector<wal::TxId>& ids() const { return ids_; }  // sorted, unique

 private:
  static unsigned Bit(uint64_t h) { return static_cast<unsigned>(h >> 56); }
  std::vector<wal::TxId> ids_;
  uint64_t filter_[4] = {0, 0, 0, 0};
};

}  // namespace cut
