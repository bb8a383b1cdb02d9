// The payloads of Apache Ignite's WAL records (RecordDataV1/V2Serializer,
// TxRecordSerializer), decoded into the record structs of record.h. Ignite's type ids
// are walcut's where both have the type; every other Ignite type is named here and
// skipped by its length.
#pragma once

#include <cstdint>
#include <string_view>

#include "libwal/record.h"
#include "libwal/status.h"

namespace wal {

// Ignite's RecordType name of an id ("PAGE_RECORD"); nullptr for an id Ignite 2.15 to
// 2.17 does not have.
const char* IgniteRecordTypeName(uint8_t type);

// Whether Ignite's record `type` holds cache writes other than DATA_RECORD_V2's
// (DATA_RECORD, the encrypted ones, MVCC_DATA_RECORD, OUT_OF_ORDER_UPDATE...): a replay
// that skipped one would restore less than the WAL holds.
bool IsIgniteOtherDataRecord(uint8_t type);
// The id of an Ignite RecordType name (case-insensitive); false when there is none.
bool ParseIgniteRecordType(std::string_view name, uint8_t* type);
// Whether DecodeIgnitePayload decodes this type (TX_RECORD, DATA_RECORD_V2,
// ROLLBACK_TX_RECORD, CLUSTER_SNAPSHOT, the increment Start and Finish, CHECKPOINT_RECORD).
bool IsDecodedIgniteType(uint8_t type);

// Decodes the payload of a record of an Ignite segment (the bytes between the frame's
// length and its CRC). A payload that does not match the grammar exactly is
// kCorruption, with the byte position inside the payload in the message. Types that
// are not decoded decode to nothing (ok).
Status DecodeIgnitePayload(uint8_t type, std::string_view payload, AnyRecord* out);

// The light views (record.h) of Ignite's TX_RECORD and DATA_RECORD_V2 payloads: they
// accept exactly what DecodeIgnitePayload accepts.
bool ViewIgniteTx(std::string_view payload, TxView* out);
bool ViewIgniteData(std::string_view payload, DataView* out);

// What a physical record of Ignite's WAL says of a group partition's update counter.
struct IgnitePartitionCounter {
  enum class Kind {
    kNone,       // nothing (another type, another page, or not as Ignite writes it)
    kLwm,        // the partition's LWM when its meta page was written at a checkpoint
    kDestroyed,  // the partition was destroyed: its counters begin again
  };
  Kind kind = Kind::kNone;
  int32_t group = 0;
  uint32_t partition = 0;
  uint64_t lwm = 0;
};
// Of a full page image (PAGE_RECORD) of a partition meta page, a partition meta delta
// (PARTITION_META_PAGE_UPDATE_COUNTERS, its _V2, PARTITION_META_PAGE_DELTA_RECORD_V3)
// or PARTITION_DESTROY; kNone for anything else.
IgnitePartitionCounter ReadIgnitePartitionCounter(uint8_t type, std::string_view payload);

}  // namespace wal
