// Where a transaction's commit on a node lies for the side rule (side.h).
//
// walcut's format: at its COMMITTED (or UNKNOWN) TX_RECORD, always.
//
// Apache Ignite's: a node logs a transaction's data entries as it applies them, and its
// COMMITTED record when the transaction's state changes, which may be later, after a
// cut's Start and Finish records and a segment switch. Ignite's cut does not wait for
// such a transaction (it has left the active set: it lists it in neither set), and
// Ignite's restore replays data entries by their place: of the last increment restored,
// those before its Start record unless its Finish record lists the transaction After,
// those between the records only when it lists it Before (everything up to the previous
// increment's Finish record). So when a cut record (Start or Finish, of any cut) lies
// between a transaction's last data entry on the node and its COMMITTED record, the
// commit is placed at that last data entry. Otherwise the two places are on the same
// side of every cut, and the commit stays at its record. A transaction whose entries
// lie on both sides of a Start record was past its ACTIVE state there, which Ignite's
// cut lists; listed in neither set, it is torn (index_builder.cc, CheckTorn).
#pragma once

#include <optional>
#include <unordered_map>

#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

class VarintWriter;
class VarintReader;

class CommitPlacer {
 public:
  // Where a transaction's entries lie on the node, since its last final record there.
  struct Entries {
    wal::Pointer first, last;
  };

  // A data entry of transaction `x` (not the null id) at `at`.
  void OnWrite(const wal::TxId& x, const wal::Pointer& at) {
    if (has_last_ && x == last_xid_) {
      last_.last = at;
      return;
    }
    if (has_last_) held_.insert_or_assign(last_xid_, last_);
    has_last_ = true;
    last_xid_ = x;
    last_ = Entries{at, at};
    if (!held_.empty()) {  // entries of x before another transaction's
      auto it = held_.find(x);
      if (it != held_.end()) {
        last_.first = it->second.first;
        held_.erase(it);
      }
    }
  }
  // Whether a record of `type` is a cut's Start or Finish record (OnCutRecord's).
  static bool IsCutRecord(uint8_t type) {
    return type == static_cast<uint8_t>(wal::RecordType::kCutStart) ||
           type == static_cast<uint8_t>(wal::RecordType::kCutFinish);
  }
  // A Start or Finish record at `at`.
  void OnCutRecord(const wal::Pointer& at) { last_cut_record_ = at; }
  // The place of `x`'s commit whose COMMITTED or UNKNOWN record is at `at`; the
  // transaction's entries so far are forgotten (a later role's come afresh), and given
  // in *entries (nullopt when there were none).
  wal::Pointer Place(const wal::TxId& x, const wal::Pointer& at, std::optional<Entries>* entries = nullptr) {
    Entries e;
    const bool any = Take(x, &e);
    if (entries != nullptr) *entries = any ? std::optional<Entries>(e) : std::nullopt;
    if (!any) return at;
    return e.last < last_cut_record_ ? e.last : at;
  }
  // A ROLLED_BACK record of `x`.
  void Forget(const wal::TxId& x) {
    Entries unused;
    (void)Take(x, &unused);
  }

  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // a fault stops `in` (VarintReader::Fail)

 private:
  bool Take(const wal::TxId& x, Entries* e) {
    if (has_last_ && x == last_xid_) {
      *e = last_;
      has_last_ = false;
      return true;
    }
    if (held_.empty()) return false;
    auto it = held_.find(x);
    if (it == held_.end()) return false;
    *e = it->second;
    held_.erase(it);
    return true;
  }

  // The last entry's transaction in a slot of its own (a transaction's entries usually
  // come together); the others' by id. A transaction is in one or the other.
  bool has_last_ = false;
  wal::TxId last_xid_;
  Entries last_;
  std::unordered_map<wal::TxId, Entries, wal::TxIdHash> held_;
  wal::Pointer last_cut_record_{};
};

}  // namespace cut
