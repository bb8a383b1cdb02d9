#include "libcut/tx_order.h"

#include <fmt/format.h>

namespace cut {

bool TxOrder::IsOpen(const wal::TxId& x) const { return open_.Find(x) != nullptr; }

std::string TxOrder::OnPrepared(const wal::TxId& x) {
  if (!on_ || x.IsNull()) return {};
  has_last_write_ = false;
  ++open_.Upsert(x).first->roles;
  return {};
}

std::string TxOrder::OnFinal(const wal::TxId& x, const char* state, bool unprepared_rollback_ok) {
  if (!on_ || x.IsNull()) return {};
  has_last_write_ = false;
  Entry* e = open_.Find(x);
  if (e == nullptr && unprepared_rollback_ok) return {};
  if (e == nullptr) {
    return fmt::format("a {} record of transaction {} with no PREPARED record of it open on this node", state,
                       x.ToString());
  }
  if (--e->roles == 0) open_.Erase(e);
  return {};
}

std::string TxOrder::OnWrite(const wal::TxId& x) {
  if (!on_) return {};
  if (has_last_write_ && last_write_ == x) return {};  // reported once, if at all
  has_last_write_ = true;
  last_write_ = x;
  if (x.IsNull()) {
    return "DATA_RECORD_V2 entries of no transaction (0.0.0, an initial load) after the node's first full snapshot";
  }
  if (open_.Find(x) != nullptr) return {};
  return fmt::format(
      "DATA_RECORD_V2 entries of transaction {} while no role of it is open on this node (after its "
      "final TX_RECORD, or with no PREPARED record)",
      x.ToString());
}

}  // namespace cut
