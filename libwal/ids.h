// Identifiers that appear in records: UUIDs (nodes, cuts), transaction versions and
// WAL pointers. Each prints and parses in one documented spelling.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace wal {

struct Uuid {
  uint64_t hi = 0;
  uint64_t lo = 0;

  bool IsNil() const { return hi == 0 && lo == 0; }
  // 8-4-4-4-12 lower-case hex.
  std::string ToString() const;
  static std::optional<Uuid> Parse(std::string_view text);
  auto operator<=>(const Uuid&) const = default;
};

// A transaction's cluster-wide id, in the style of Ignite's GridCacheVersion: the
// topology version it started on, the near node's join order, and the near node's
// local order. Printed "T.N.O", e.g. "1.3.42".
struct TxId {
  uint32_t topology_version = 0;
  uint32_t node_order = 0;
  uint64_t order = 0;

  bool IsNull() const { return topology_version == 0 && node_order == 0 && order == 0; }
  std::string ToString() const;
  static std::optional<TxId> Parse(std::string_view text);
  auto operator<=>(const TxId&) const = default;
};

// A record's address: segment index and byte offset of the record's first byte in
// the segment's uncompressed bytes. Printed "SEG:OFF" in decimal.
struct Pointer {
  uint64_t segment = 0;
  uint32_t offset = 0;

  std::string ToString() const;
  // Accepts "SEG:OFF", each part decimal or 0x-prefixed hex.
  static std::optional<Pointer> Parse(std::string_view text);
  auto operator<=>(const Pointer&) const = default;
};

struct TxIdHash {
  size_t operator()(const TxId& id) const {
    uint64_t h = id.order * 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<uint64_t>(id.node_order) << 32 | id.topology_version) + 0x7F4A7C15ULL +
         (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

struct UuidHash {
  size_t operator()(const Uuid& id) const {
    return static_cast<size_t>(id.hi * 0x9E3779B97F4A7C15ULL ^ id.lo);
  }
};

}  // namespace wal
