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

}  // namespace wal
