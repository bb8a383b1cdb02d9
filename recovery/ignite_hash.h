// Apache Ignite's hash of a partition copy, as its snapshot check and idle_verify compute
// it (IdleVerifyUtility): over the rows without an expire time, the sum (wrapping at 32
// bits) of each key's Java hashCode and of Arrays.hashCode of each value's bytes, and
// apart, the sum of the rows' version hashes. Sums of independent terms: two copies that
// swap two keys' values hash alike, which walcut's own content hash tells apart.
#pragma once

#include <cstdint>
#include <string_view>

#include "libwal/ignite_page.h"

namespace recovery {

// The Java hashCode of a key cache object (its type byte and its bytes), where Ignite's
// is known from the bytes alone: a binary object's stored hash; a regular object's
// byte, short, int, long, float, double, char, boolean, String or UUID. False otherwise.
bool IgniteKeyHash(int8_t type, std::string_view bytes, int32_t* out);
// Arrays.hashCode of a value's bytes (a binary enum's as Ignite rewrites them).
int32_t IgniteValueHash(int8_t type, std::string_view bytes);
// GridCacheVersion.hashCode (the data-center id and a conflict version left out).
int32_t IgniteVersionHash(const wal::ignite_page::RowVersion& v);

struct IgnitePartitionHash {
  int32_t hash = 0;
  int32_t ver_hash = 0;
  bool known = true;  // false when some key's hash is not known from its bytes
  void Add(const wal::ignite_page::Row& row);
};

}  // namespace recovery
