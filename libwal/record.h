// The record types of a node's WAL and their payload codec. Type ids follow Apache
// Ignite's WALRecord.RecordType where a twin exists. Structs hold views: a decoded
// record points into the buffer it came from, an encoded one into the caller's data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace wal {

enum class RecordType : uint8_t {
  kTx = 0,                  // TX_RECORD
  kHeader = 4,              // HEADER_RECORD
  kSwitchSegment = 40,      // SWITCH_SEGMENT_RECORD
  kRollback = 57,           // ROLLBACK_TX_RECORD
  kData = 70,               // DATA_RECORD_V2
  kClusterSnapshot = 75,    // CLUSTER_SNAPSHOT
  kCutStart = 76,           // INCREMENTAL_SNAPSHOT_START_RECORD
  kCutFinish = 77,          // INCREMENTAL_SNAPSHOT_FINISH_RECORD
};

// Printable name ("TX_RECORD"); "UNKNOWN" for ids this version does not know.
const char* RecordTypeName(uint8_t type);
// Accepts the printed name or a short alias (tx, header, switch, rollback, data,
// snapshot, cut-start, cut-finish), case-insensitive.
bool ParseRecordType(std::string_view name, RecordType* out);
bool IsKnownRecordType(uint8_t type);

// Ignite's TransactionState ordinals.
enum class TxState : uint8_t {
  kPrepared = 2,
  kCommitted = 5,
  kRolledBack = 7,
  kUnknown = 8,
};
const char* TxStateName(TxState state);
bool ParseTxState(std::string_view name, TxState* out);

enum class EntryOp : uint8_t { kCreate = 1, kUpdate = 2, kDelete = 3 };
const char* EntryOpName(EntryOp op);

struct HeaderRecord {
  uint64_t magic = 0;
  uint32_t version = 0;
  uint64_t segment = 0;
  Uuid node_id;
  uint16_t node_order = 0;  // the compact id participants are named by

  bool operator==(const HeaderRecord&) const = default;
};

// TxRecord flags.
inline constexpr uint8_t kTxFlagRecoveryFinish = 1;  // finished by transaction recovery
inline constexpr uint8_t kTxFlagOnePhase = 2;        // committed by the 1PC protocol
inline constexpr uint8_t kTxKnownFlags = kTxFlagRecoveryFinish | kTxFlagOnePhase;

struct Participant {
  uint16_t primary = 0;            // node order
  std::vector<uint16_t> backups;   // node orders

  bool operator==(const Participant&) const = default;
};

// A partition counter range (start, start + delta] reserved for a transaction.
struct CounterRange {
  uint32_t cache_id = 0;
  uint32_t partition = 0;
  uint64_t start = 0;
  uint64_t delta = 0;

  bool operator==(const CounterRange&) const = default;
};

struct TxRecord {
  TxState state = TxState::kPrepared;
  uint8_t flags = 0;
  TxId xid;                        // near version: the cluster-wide id
  uint32_t topology_version = 0;   // the version the transaction is mapped to
  uint64_t timestamp = 0;          // nanoseconds of (simulated) time
  std::vector<Participant> participants;
  // In PREPARED records: the counter ranges of this node's partition copies that the
  // transaction reserved (primary) or was given (backup). Empty in other states.
  std::vector<CounterRange> counters;

  bool operator==(const TxRecord&) const = default;
};

// DataEntry flags.
inline constexpr uint8_t kEntryFlagPrimary = 1;

struct DataEntry {
  uint32_t cache_id = 0;
  uint32_t partition = 0;
  uint64_t counter = 0;            // partition update counter of this write
  EntryOp op = EntryOp::kUpdate;
  uint8_t flags = 0;
  TxId xid;                        // near version of the writing transaction
  TxId write_version;
  std::string_view key;
  std::string_view value;          // empty for DELETE

  bool operator==(const DataEntry&) const = default;
};

struct DataRecord {
  uint64_t timestamp = 0;
  std::vector<DataEntry> entries;

  bool operator==(const DataRecord&) const = default;
};

// Closes the counter range (start, start + range] of one partition.
struct RollbackRecord {
  uint32_t cache_id = 0;
  uint32_t partition = 0;
  uint64_t start = 0;
  uint64_t range = 0;

  bool operator==(const RollbackRecord&) const = default;
};

struct ClusterSnapshotRecord {
  uint64_t timestamp = 0;
  std::string_view name;

  bool operator==(const ClusterSnapshotRecord&) const = default;
};

struct CutStartRecord {
  Uuid cut_id;
  uint32_t topology_version = 0;
  uint64_t timestamp = 0;

  bool operator==(const CutStartRecord&) const = default;
};

struct CutFinishRecord {
  Uuid cut_id;
  uint64_t timestamp = 0;
  std::vector<TxId> before;        // Ignite's "included"
  std::vector<TxId> after;         // Ignite's "excluded"

  bool operator==(const CutFinishRecord&) const = default;
};

// One decoded record. Only the member named by `type` is meaningful; the others keep
// their capacity so that decoding a stream allocates almost nothing.
struct AnyRecord {
  uint8_t type = 0;
  HeaderRecord header;
  TxRecord tx;
  DataRecord data;
  RollbackRecord rollback;
  ClusterSnapshotRecord snapshot;
  CutStartRecord cut_start;
  CutFinishRecord cut_finish;
};

void EncodePayload(const HeaderRecord& r, std::string* out);
void EncodePayload(const TxRecord& r, std::string* out);
void EncodePayload(const DataRecord& r, std::string* out);
void EncodePayload(const RollbackRecord& r, std::string* out);
void EncodePayload(const ClusterSnapshotRecord& r, std::string* out);
void EncodePayload(const CutStartRecord& r, std::string* out);
void EncodePayload(const CutFinishRecord& r, std::string* out);

inline RecordType TypeOf(const HeaderRecord&) { return RecordType::kHeader; }
inline RecordType TypeOf(const TxRecord&) { return RecordType::kTx; }
inline RecordType TypeOf(const DataRecord&) { return RecordType::kData; }
inline RecordType TypeOf(const RollbackRecord&) { return RecordType::kRollback; }
inline RecordType TypeOf(const ClusterSnapshotRecord&) { return RecordType::kClusterSnapshot; }
inline RecordType TypeOf(const CutStartRecord&) { return RecordType::kCutStart; }
inline RecordType TypeOf(const CutFinishRecord&) { return RecordType::kCutFinish; }

// Light views of the two types that fill a WAL, for a reader that needs a few fields of
// every record: read straight from the payload, nothing allocated. A payload is viewed
// exactly when DecodePayload would accept it; for the message of one that is not, ask
// DecodePayload.
struct TxView {
  TxState state = TxState::kPrepared;
  uint8_t flags = 0;
  TxId xid;
  uint32_t topology_version = 0;
  uint64_t timestamp = 0;
  uint16_t participant_count = 0;
  std::string_view participants;   // their bytes, as encoded
  uint16_t counter_count = 0;
  std::string_view counters;       // their bytes, as encoded

  // f(node order) for each participant's primary and then its backups, in record order.
  template <typename F>
  void ForEachParticipantNode(F&& f) const;
};

struct DataView {
  uint64_t timestamp = 0;
  uint32_t count = 0;
  std::string_view entries;        // their bytes, as encoded
};

bool ViewTx(std::string_view payload, TxView* out);
bool ViewData(std::string_view payload, DataView* out);

// The entries of a viewed DATA record, in order; each as DecodePayload gives it.
class DataEntryCursor {
 public:
  explicit DataEntryCursor(const DataView& v) : p_(v.entries.data()), left_(v.count) {}
  bool Next(DataEntry* e);

 private:
  const char* p_;
  uint32_t left_;
};

// Decodes a payload of a known type into out->(member). A payload that does not match
// the grammar exactly (short, trailing bytes, bad enum) is kCorruption, with the byte
// position inside the payload in the message. Unknown types decode to nothing (ok).
Status DecodePayload(uint8_t type, std::string_view payload, AnyRecord* out);

template <typename F>
void TxView::ForEachParticipantNode(F&& f) const {
  const auto* p = reinterpret_cast<const unsigned char*>(participants.data());
  auto u16 = [](const unsigned char* q) { return static_cast<uint16_t>(q[0] | q[1] << 8); };
  for (uint16_t i = 0; i < participant_count; ++i) {
    f(u16(p));
    const uint16_t nb = u16(p + 2);
    p += 4;
    for (uint16_t b = 0; b < nb; ++b, p += 2) f(u16(p));
  }
}

}  // namespace wal
