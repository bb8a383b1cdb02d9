// The bank workload: transfers that conserve money, and accounts closed and reopened.
#include "sim/cluster.h"

#include <algorithm>

namespace sim {

// The bank workload on the values read under the locks; money is never created or lost.
// A closed account (deleted) is reopened (created) by the next transaction that touches
// it, with money moved in from the others; otherwise, now and then (--close-rate), the
// first account is closed, all its money moved out first; otherwise a random amount
// moves from the first account to the others.
void Cluster::Transfer(Tx& t) {
  const size_t k = t.accounts.size();
  size_t closed = 0, giver = k;
  for (size_t i = 0; i < k; ++i) {
    if (!t.existed[i]) {
      ++closed;
    } else if (giver == k) {
      giver = i;
    }
  }
  if (closed > 0) {
    const int64_t have = giver == k ? 0 : t.new_balance[giver];
    int64_t amount =
        have <= 0 ? 0 : static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(std::min<int64_t>(have, 100)) + 1));
    if (giver != k) t.new_balance[giver] -= amount;
    size_t given = 0;
    for (size_t i = 0; i < k; ++i) {
      if (t.existed[i]) continue;
      int64_t share =
          amount / static_cast<int64_t>(closed) + (given++ == 0 ? amount % static_cast<int64_t>(closed) : 0);
      t.new_balance[i] = share;
      t.exists[i] = 1;
    }
    return;
  }
  int64_t from = t.new_balance[0];
  int64_t amount =
      from <= 0 ? 0 : static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(std::min<int64_t>(from, 100)) + 1));
  if (c_.close_rate > 0 && rng_.Unit() < c_.close_rate) {
    amount = from;
    t.exists[0] = 0;
  }
  t.new_balance[0] -= amount;
  const size_t others = k - 1;
  for (size_t i = 1; i < k; ++i) {
    int64_t share = amount / static_cast<int64_t>(others) + (i == 1 ? amount % static_cast<int64_t>(others) : 0);
    t.new_balance[i] += share;
  }
}

}  // namespace sim
