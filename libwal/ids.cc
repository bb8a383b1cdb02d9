#include "libwal/ids.h"

#include <charconv>

#include <fmt/format.h>

namespace wal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <typename T>
bool ParseUnsigned(std::string_view s, T* out) {
  if (s.empty()) return false;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::string Uuid::ToString() const {
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFULL);
}

std::optional<Uuid> Uuid::Parse(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid u;
  int nibbles = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      continue;
    }
    int v = HexValue(text[i]);
    if (v < 0) return std::nullopt;
    uint64_t& word = nibbles < 16 ? u.hi : u.lo;
    word = (word << 4) | static_cast<uint64_t>(v);
    ++nibbles;
  }
  return u;
}

std::string TxId::ToString() const {
  if (DataCenterId() != 0) {
    return fmt::format("{}.{}.{}@{}", topology_version, NodeOrder(), order, DataCenterId());
  }
  return fmt::format("{}.{}.{}", topology_version, node_order, order);
}

std::optional<TxId> TxId::Parse(std::string_view text) {
  size_t a = text.find('.');
  if (a == std::string_view::npos) return std::nullopt;
  size_t b = text.find('.', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  TxId id;
  std::string_view order = text.substr(b + 1);
  uint32_t dc = 0;
  if (size_t at = order.find('@'); at != std::string_view::npos) {
    if (!ParseUnsigned(order.substr(at + 1), &dc) || dc == 0 || dc >= (1u << (32 - kNodeOrderBits))) {
      return std::nullopt;
    }
    order = order.substr(0, at);
  }
  if (!ParseUnsigned(text.substr(0, a), &id.topology_version) ||
      !ParseUnsigned(text.substr(a + 1, b - a - 1), &id.node_order) || !ParseUnsigned(order, &id.order)) {
    return std::nullopt;
  }
  if (dc != 0) {
    if (id.node_order >= (1u << kNodeOrderBits)) return std::nullopt;
    id.node_order |= dc << kNodeOrderBits;
  }
  return id;
}

std::string Pointer::ToString() const { return fmt::format("{}:{}", segment, offset); }

std::optional<Pointer> Pointer::Parse(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  Pointer p;
  if (!ParseUnsigned(text.substr(0, colon), &p.segment) || !ParseUnsigned(text.substr(colon + 1), &p.offset)) {
    return std::nullopt;
  }
  return p;
}

}  // namespace wal
