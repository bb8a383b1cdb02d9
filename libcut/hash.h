// The one hash mixer of libcut's tables, and the hash every table files a transaction
// id under.
#pragma once

#include <cstdint>

#include "libwal/ids.h"

namespace cut {

// A 64-bit finalizer (the last steps of SplitMix64): every input bit moves every output
// bit, so a table may take its low bits as a slot and its high bits as a tag.
inline uint64_t Mix64(uint64_t h) {
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  return h;
}

inline uint64_t HashTxId(const wal::TxId& x) {
  return Mix64(x.order * 0x9E3779B97F4A7C15ULL ^ (uint64_t{x.node_order} << 40 | x.topology_version));
}

// The FlatTable traits (flat_table.h) of an entry filed under its transaction id, the
// entry's field `xid`.
template <typename Entry>
struct ByTxId {
  using Key = wal::TxId;
  static uint64_t Hash(const wal::TxId& x) { return HashTxId(x); }
  static wal::TxId KeyOf(const Entry& e) { return e.xid; }
  static void Init(Entry* e, const wal::TxId& x) { e->xid = x; }
};

}  // namespace cut
