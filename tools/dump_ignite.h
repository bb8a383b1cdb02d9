// How `walcut dump` prints the records of Apache Ignite segments: the describer rows of
// record_format.cc's table for Ignite's records (its versions, cache objects, ms
// timestamps, CHECKPOINT_RECORD), kept apart from walcut's own.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "libwal/record.h"
#include "tools/record_format.h"

namespace tools {

struct RecordDesc {
  uint8_t type;
  void (*text)(const wal::AnyRecord&, const RecordFormat&, fmt::memory_buffer*);
  void (*json)(const wal::AnyRecord&, const RecordFormat&, fmt::memory_buffer*);
};

// The row for a type id of an Ignite segment; nullptr for types printed by name and
// size only.
const RecordDesc* IgniteDescOf(uint8_t type);

// An Ignite version as JSON: "T.N.O" quoted, or null for a version that is null.
void PutIgniteVersionJson(fmt::memory_buffer* out, const wal::TxId& id);

}  // namespace tools
