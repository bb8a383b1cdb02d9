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
// local order. Printed "T.N.O", e.g. "1.3.42". `node_order` is Ignite's nodeOrderDrId
// word: the node order in its low 27 bits, a data-center id above them (0 in walcut's
// own WALs and in Ignite clusters without data-center replication), printed "T.N.O@D"
// when it is not 0. An Ignite version that is null reads as the all-zero id.
struct TxId {
  uint32_t topology_version = 0;
  uint32_t node_order = 0;
  uint64_t order = 0;

  static constexpr uint32_t kNodeOrderBits = 27;
  uint32_t NodeOrder() const { return node_order & ((1u << kNodeOrderBits) - 1); }
  uint32_t DataCenterId() const { return node_order >> kNodeOrderBits; }
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
    h ^= (static_cast<uint64_t>(id.node_order) << 32 | id.topology_version) + 0x7F4A7C15ULL + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

struct UuidHash {
  size_t operator()(const Uuid& id) const { return static_cast<size_t>(id.hi * 0x9E3779B97F4A7C15ULL ^ id.lo); }
};

}  // namespace wal
