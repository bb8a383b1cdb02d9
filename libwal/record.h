// The record types of a node's WAL and their payload codec. Type ids follow Apache
// Ignite's WALRecord.RecordType where a twin exists. Structs hold views: a decoded
// record points into the buffer it came from, an encoded one into the caller's data.
// The same structs hold the records of Ignite's segments (libwal/ignite_record.h
// decodes them); the comments say where the two formats differ.
//
// Timestamps are nanoseconds in every record: in walcut's own WALs, of simulated time
// since the run began; in Ignite's, of wall-clock time since the Unix epoch (Ignite
// writes milliseconds; they are multiplied by 10^6, so they print back exactly).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ids.h"
#include "libwal/segment_format.h"
#include "libwal/status.h"

namespace wal {

enum class RecordType : uint8_t {
  kTx = 0,                // TX_RECORD
  kCheckpoint = 3,        // CHECKPOINT_RECORD (Ignite's segments only)
  kHeader = 4,            // HEADER_RECORD
  kSwitchSegment = 40,    // SWITCH_SEGMENT_RECORD
  kRollback = 57,         // ROLLBACK_TX_RECORD
  kData = 70,             // DATA_RECORD_V2
  kClusterSnapshot = 75,  // CLUSTER_SNAPSHOT
  kCutStart = 76,         // INCREMENTAL_SNAPSHOT_START_RECORD
  kCutFinish = 77,        // INCREMENTAL_SNAPSHOT_FINISH_RECORD
};

// Printable name ("TX_RECORD"); "UNKNOWN" for ids this version does not know.
const char* RecordTypeName(uint8_t type);
// Accepts the printed name or a short alias (tx, header, switch, rollback, data,
// snapshot, cut-start, cut-finish), case-insensitive.
bool ParseRecordType(std::string_view name, RecordType* out);
// The record types of walcut's format, in id order: id, name, alias.
struct RecordTypeInfo {
  uint8_t id;
  const char* name;
  const char* alias;
};
std::vector<RecordTypeInfo> RecordTypes();
bool IsKnownRecordType(uint8_t type);

// Ignite's TransactionState ordinals. walcut writes these four; Ignite's segments may
// hold the others (ACTIVE 0, PREPARING 1, MARKED_ROLLBACK 3, COMMITTING 4, ROLLING_BACK
// 6, SUSPENDED 9), which are kept as their ordinal and named by TxStateName.
enum class TxState : uint8_t {
  kPrepared = 2,
  kCommitted = 5,
  kRolledBack = 7,
  kUnknown = 8,
};
inline constexpr uint8_t kMaxTxStateOrdinal = 9;
const char* TxStateName(TxState state);

// Ignite's GridCacheOperation ordinals. walcut writes these three, and so does Ignite;
// the others (READ 0, TRANSFORM 4, RELOAD 5, NOOP 6) are accepted from Ignite's segments
// as their ordinal and named by EntryOpName.
enum class EntryOp : uint8_t { kCreate = 1, kUpdate = 2, kDelete = 3 };
inline constexpr uint8_t kMaxEntryOpOrdinal = 6;
const char* EntryOpName(EntryOp op);

// In an Ignite segment: Ignite's magic, its serializer version, the segment index, and
// no node (nil id, order 0): Ignite's header names none.
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
  uint16_t primary = 0;           // node order
  std::vector<uint16_t> backups;  // node orders

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
  TxId xid;                       // near version: the cluster-wide id
  uint32_t topology_version = 0;  // the version the transaction is mapped to (0 from Ignite)
  uint64_t timestamp = 0;         // nanoseconds (see the top of this file)
  TxId write_version;             // Ignite's writeVersion (the DHT xid); null in walcut's own
  // Ignite: primaries and backups by their compact ids in the baseline (kAllOtherNodes
  // stands for every other baseline node); walcut: node orders.
  std::vector<Participant> participants;
  // In PREPARED records: the counter ranges of this node's partition copies that the
  // transaction reserved (primary) or was given (backup). Empty in other states.
  std::vector<CounterRange> counters;

  bool operator==(const TxRecord&) const = default;
};

// DataEntry flags (Ignite's bits; walcut writes only PRIMARY).
inline constexpr uint8_t kEntryFlagPrimary = 1;
inline constexpr uint8_t kEntryFlagPreload = 2;
inline constexpr uint8_t kEntryFlagFromStore = 4;

struct DataEntry {
  uint32_t cache_id = 0;
  uint32_t partition = 0;
  uint64_t counter = 0;  // partition update counter of this write
  EntryOp op = EntryOp::kUpdate;
  uint8_t flags = 0;
  TxId xid;  // near version of the writing transaction
  TxId write_version;
  // walcut: the key and value bytes. Ignite: each cache object's bytes after its type
  // byte, with the type (ignite::kObject*) beside them; 0 in walcut's own entries.
  std::string_view key;
  std::string_view value;  // empty for DELETE
  int8_t key_type = 0;
  int8_t value_type = 0;
  bool value_null = false;  // Ignite: no value at all (a DELETE), not an empty one
  int64_t expire_time = 0;  // Ignite: the entry's expire time (ms; 0 = never)

  bool operator==(const DataEntry&) const = default;
};

struct DataRecord {
  uint64_t timestamp = 0;
  std::vector<DataEntry> entries;

  bool operator==(const DataRecord&) const = default;
};

// Closes the counter range (start, start + range] of one partition. From Ignite,
// `cache_id` holds the cache group id.
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

// From Ignite (INCREMENTAL_SNAPSHOT_START_RECORD): the id only; topology version and
// timestamp 0. Likewise Ignite's Finish record has no timestamp.
struct CutStartRecord {
  Uuid cut_id;
  uint32_t topology_version = 0;
  uint64_t timestamp = 0;

  bool operator==(const CutStartRecord&) const = default;
};

struct CutFinishRecord {
  Uuid cut_id;
  uint64_t timestamp = 0;
  std::vector<TxId> before;  // Ignite's "included"
  std::vector<TxId> after;   // Ignite's "excluded"

  bool operator==(const CutFinishRecord&) const = default;
};

// Ignite's CHECKPOINT_RECORD, decoded to be printed: the checkpoint id, the pointer it
// marks (if any), and per cache group the state of each partition.
struct CheckpointPartition {
  uint16_t partition = 0;
  int64_t size = 0;
  int64_t counter = 0;
  uint8_t state = 0;

  bool operator==(const CheckpointPartition&) const = default;
};

struct CheckpointGroup {
  int32_t group_id = 0;
  std::vector<CheckpointPartition> partitions;

  bool operator==(const CheckpointGroup&) const = default;
};

struct CheckpointRecord {
  Uuid id;
  bool has_mark = false;
  Pointer mark;
  uint32_t mark_length = 0;
  std::vector<CheckpointGroup> groups;
  bool end = false;

  bool operator==(const CheckpointRecord&) const = default;
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
  CheckpointRecord checkpoint;
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
// exactly when DecodePayload (DecodeIgnitePayload for an Ignite segment's) would accept
// it; for the message of one that is not, ask that. A view carries the format of the
// bytes it points into.
struct TxView {
  TxState state = TxState::kPrepared;
  uint8_t flags = 0;
  TxId xid;
  uint32_t topology_version = 0;
  uint64_t timestamp = 0;
  TxId write_version;  // Ignite's only
  SegmentFormat format = SegmentFormat::kWalcut;
  uint32_t participant_count = 0;
  std::string_view participants;  // their bytes, as encoded
  uint16_t counter_count = 0;
  std::string_view counters;  // their bytes, as encoded

  // Whether the participants are node orders, as in walcut's format. Apache Ignite names
  // them by their compact ids in the baseline, which its WAL does not map to nodes.
  bool NamesNodeOrders() const { return !IsIgnite(format); }
  // How many distinct nodes the participants name (counted up to 64; more is 64), and in
  // *every_other whether some group's backups are every other node (Apache Ignite's
  // marker, which names no node). What a count needs of ids that are not node orders.
  uint32_t ParticipantNodeCount(bool* every_other) const;
  // f(id) for each participant's primary and then its backups, in record order.
  template <typename F>
  void ForEachParticipantNode(F&& f) const;
  // group(primary, number of backups) for each participant, each followed by
  // backup(node order) for each of its backups.
  template <typename G, typename B>
  void ForEachParticipant(G&& group, B&& backup) const;
};

struct DataView {
  uint64_t timestamp = 0;
  uint32_t count = 0;
  std::string_view entries;  // their bytes, as encoded
  SegmentFormat format = SegmentFormat::kWalcut;
};

bool ViewTx(std::string_view payload, TxView* out);
bool ViewData(std::string_view payload, DataView* out);

// The entries of a viewed DATA record, in order; each as DecodePayload gives it.
class DataEntryCursor {
 public:
  explicit DataEntryCursor(const DataView& v)
      : p_(v.entries.data()), end_(v.entries.data() + v.entries.size()), left_(v.count), ignite_(IsIgnite(v.format)) {}
  bool Next(DataEntry* e);

 private:
  bool NextIgnite(DataEntry* e);

  const char* p_;
  const char* end_;
  uint32_t left_;
  bool ignite_;
};

// Decodes a payload of a known type into out->(member). A payload that does not match
// the grammar exactly (short, trailing bytes, bad enum) is kCorruption, with the byte
// position inside the payload in the message. Unknown types decode to nothing (ok).
Status DecodePayload(uint8_t type, std::string_view payload, AnyRecord* out);

template <typename G, typename B>
void TxView::ForEachParticipant(G&& group, B&& backup) const {
  const auto* p = reinterpret_cast<const unsigned char*>(participants.data());
  auto u16 = [](const unsigned char* q) { return static_cast<uint16_t>(q[0] | q[1] << 8); };
  if (IsIgnite(format)) {
    // i16 primary · i32 backup count · i16 backups (counts checked by ViewIgniteTx)
    for (uint32_t i = 0; i < participant_count; ++i) {
      const uint32_t nb = static_cast<uint32_t>(p[2] | p[3] << 8 | p[4] << 16) | static_cast<uint32_t>(p[5]) << 24;
      group(u16(p), nb);
      p += 6;
      for (uint32_t b = 0; b < nb; ++b, p += 2) backup(u16(p));
    }
    return;
  }
  for (uint32_t i = 0; i < participant_count; ++i) {
    const uint16_t nb = u16(p + 2);
    group(u16(p), uint32_t{nb});
    p += 4;
    for (uint16_t b = 0; b < nb; ++b, p += 2) backup(u16(p));
  }
}

template <typename F>
void TxView::ForEachParticipantNode(F&& f) const {
  ForEachParticipant([&](uint16_t primary, uint32_t) { f(primary); }, f);
}

}  // namespace wal
