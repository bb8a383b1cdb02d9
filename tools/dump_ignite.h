// How `walcut dump` prints the records of Apache Ignite segments: the describers of
// Ignite's records (its versions, cache objects, ms timestamps, CHECKPOINT_RECORD), which
// record_format.cc's one table lists beside walcut's own for the ids where they differ.
#pragma once

#include <fmt/format.h>

#include "libwal/record.h"
#include "tools/record_format.h"

namespace tools {

// An Ignite version as JSON: "T.N.O" quoted, or null for a version that is null.
void PutIgniteVersionJson(fmt::memory_buffer* out, const wal::TxId& id);

// Ignite's describers, a text and a JSON one per record type (record_format.cc's table).
namespace ignite_rows {
void HeaderText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void HeaderJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void TxText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void TxJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void DataText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void DataJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void RollbackText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void RollbackJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void SnapshotText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void SnapshotJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void StartText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void StartJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void FinishText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void FinishJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void CheckpointText(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
void CheckpointJson(const wal::AnyRecord& a, const RecordFormat& f, fmt::memory_buffer* out);
}  // namespace ignite_rows

}  // namespace tools
