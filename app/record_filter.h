// Which records of a WAL a reading shows (`walcut dump`'s filters): by type, position,
// transaction, partition, cache, key or cut, and for a data record which of its entries.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libwal/binary_meta.h"
#include "libwal/ids.h"
#include "libwal/record.h"
#include "libwal/wal_reader.h"

namespace app {

struct RecordSelection {
  std::vector<uint8_t> types;  // record type ids; empty = all
  std::optional<wal::TxId> tx;
  std::optional<uint32_t> partition;
  std::vector<uint32_t> caches;  // cache ids; empty = all
  std::optional<std::string> key;
  std::optional<std::string> cut;  // a cut id or a prefix of one
  std::optional<wal::Pointer> from;
};

// The time a record carries, if it carries one (Ignite's cut and snapshot records, and
// records walcut does not decode, carry none).
std::optional<uint64_t> OwnTime(const wal::Record& r);

class RecordFilter {
 public:
  // `s` must outlive the filter.
  explicit RecordFilter(const RecordSelection& s);

  // Whether to show `r`; for a DATA_RECORD_V2 under an entry filter, also which entries
  // (*partial: not all of them).
  bool Match(const wal::Record& r, std::vector<uint32_t>* entries, bool* partial) const;

  bool CacheWanted(uint32_t cache) const;

  // The binary metadata of the input being read: a binary key matches by the text shown.
  void set_binary_types(const wal::BinaryTypes* types) { binary_types_ = types; }

 private:
  // walcut's keys are bytes; an Ignite key matches by its text (an int key 42 by "42",
  // a String by itself) or by its bytes.
  bool KeyMatches(const wal::Record& r, const wal::DataEntry& e) const;

  const wal::BinaryTypes* binary_types_ = nullptr;
  const RecordSelection& o_;
  std::array<bool, 256> types_{};
  bool any_type_ = true;
  bool entry_level_ = false;
};

}  // namespace app
