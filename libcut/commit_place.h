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
// side of every cut, and the commit stays at its record.
#pragma once

#include <unordered_map>

#include "libwal/ids.h"
#include "libwal/record.h"

namespace cut {

class VarintWriter;
class VarintReader;

class CommitPlacer {
 public:
  // A data entry of transaction `x` (not the null id) at `at`.
  void OnWrite(const wal::TxId& x, const wal::Pointer& at) {
    if (has_last_ && x != last_xid_) held_[last_xid_] = last_at_;
    has_last_ = true;
    last_xid_ = x;
    last_at_ = at;
  }
  // Whether a record of `type` is a cut's Start or Finish record (OnCutRecord's).
  static bool IsCutRecord(uint8_t type) {
    return type == static_cast<uint8_t>(wal::RecordType::kCutStart) ||
           type == static_cast<uint8_t>(wal::RecordType::kCutFinish);
  }
  // A Start or Finish record at `at`.
  void OnCutRecord(const wal::Pointer& at) { last_cut_record_ = at; }
  // The place of `x`'s commit whose COMMITTED or UNKNOWN record is at `at`; the
  // transaction's entries so far are forgotten (a later role's come afresh).
  wal::Pointer Place(const wal::TxId& x, const wal::Pointer& at) {
    wal::Pointer last_write;
    if (!Take(x, &last_write)) return at;
    return last_write < last_cut_record_ ? last_write : at;
  }
  // f(x) for every transaction with entries here and no COMMITTED, UNKNOWN or
  // ROLLED_BACK record since them.
  template <typename F>
  void ForEachHolding(F&& f) const {
    for (const auto& [x, at] : held_) f(x);
    if (has_last_) f(last_xid_);
  }
  // A ROLLED_BACK record of `x`.
  void Forget(const wal::TxId& x) {
    wal::Pointer unused;
    (void)Take(x, &unused);
  }

  void Save(VarintWriter& o) const;
  void Load(VarintReader& in);  // throws CodecError

 private:
  bool Take(const wal::TxId& x, wal::Pointer* last_write) {
    bool found = false;
    if (!held_.empty()) {
      auto it = held_.find(x);
      if (it != held_.end()) {
        *last_write = it->second;
        found = true;
        held_.erase(it);
      }
    }
    if (has_last_ && x == last_xid_) {
      *last_write = last_at_;
      has_last_ = false;
      found = true;
    }
    return found;
  }

  // The last entry's transaction in a slot of its own (a transaction's entries usually
  // come together); the others' last entries by id.
  bool has_last_ = false;
  wal::TxId last_xid_;
  wal::Pointer last_at_;
  std::unordered_map<wal::TxId, wal::Pointer, wal::TxIdHash> held_;
  wal::Pointer last_cut_record_{};
};

}  // namespace cut
