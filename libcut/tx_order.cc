#include "libcut/tx_order.h"

#include <fmt/format.h>

#include "libcut/tx_table.h"

namespace cut {

TxOrder::Slot* TxOrder::Find(const wal::TxId& x) {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = HashTxId(x) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.roles == 0) return nullptr;
    if (s.id == x) return &s;
  }
}

void TxOrder::Erase(Slot* s) {
  const size_t mask = slots_.size() - 1;
  size_t hole = static_cast<size_t>(s - slots_.data());
  for (size_t i = (hole + 1) & mask; slots_[i].roles != 0; i = (i + 1) & mask) {
    const size_t home = HashTxId(slots_[i].id) & mask;
    // Move the entry back into the hole unless its home lies cyclically in (hole, i].
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  slots_[hole] = Slot{};
  --size_;
}

void TxOrder::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& o : old) {
    if (o.roles == 0) continue;
    size_t i = HashTxId(o.id) & mask;
    while (slots_[i].roles != 0) i = (i + 1) & mask;
    slots_[i] = o;
  }
}

bool TxOrder::IsOpen(const wal::TxId& x) const { return Find(x) != nullptr; }

std::string TxOrder::OnPrepared(const wal::TxId& x) {
  if (!on_ || x.IsNull()) return {};
  has_last_write_ = false;
  if (Slot* s = Find(x)) {
    ++s->roles;
    return {};
  }
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  size_t i = HashTxId(x) & mask;
  while (slots_[i].roles != 0) i = (i + 1) & mask;
  slots_[i] = Slot{x, 1};
  ++size_;
  return {};
}

std::string TxOrder::OnFinal(const wal::TxId& x, const char* state) {
  if (!on_ || x.IsNull()) return {};
  has_last_write_ = false;
  Slot* s = Find(x);
  if (s == nullptr) {
    return fmt::format("a {} record of transaction {} with no PREPARED record of it open on this node", state,
                       x.ToString());
  }
  if (--s->roles == 0) Erase(s);
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
  if (Find(x) != nullptr) return {};
  return fmt::format("DATA_RECORD_V2 entries of transaction {} while no role of it is open on this node (after its "
                     "final TX_RECORD, or with no PREPARED record)",
                     x.ToString());
}

}  // namespace cut
