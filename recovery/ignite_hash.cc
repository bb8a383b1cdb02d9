#include "recovery/ignite_hash.h"

#include <cstring>

#include "libwal/binary_text.h"
#include "libwal/coding.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_snapshot.h"

namespace recovery {
namespace {

// Ignite's binary type codes (GridBinaryMarshaller): libwal's.
using namespace wal::binary;          // NOLINT(google-build-using-namespace): the codes, in a switch
constexpr size_t kBinaryHashPos = 8;  // GridBinaryMarshaller.HASH_CODE_POS

int32_t Fold(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v ^ (v >> 32))); }

}  // namespace

bool IgniteKeyHash(int8_t type, std::string_view b, int32_t* out) {
  if (type != wal::ignite::kObjectRegular && type != wal::ignite::kObjectBinary) return false;
  if (b.empty()) return false;
  const auto code = static_cast<uint8_t>(b[0]);
  const char* p = b.data() + 1;
  const size_t left = b.size() - 1;
  switch (code) {
    case wal::binary::kObject:
      if (b.size() < kBinaryHashPos + 4) return false;
      *out = static_cast<int32_t>(wal::DecodeFixed32(b.data() + kBinaryHashPos));
      return true;
    case wal::binary::kByte:
      if (left != 1) return false;
      *out = static_cast<int8_t>(p[0]);  // NOLINT(bugprone-signed-char-misuse): Java's byte is signed
      return true;
    case wal::binary::kBoolean:
      if (left != 1) return false;
      *out = p[0] != 0 ? 1231 : 1237;
      return true;
    case wal::binary::kShort:
      if (left != 2) return false;
      *out = static_cast<int16_t>(wal::DecodeFixed16(p));
      return true;
    case wal::binary::kChar:
      if (left != 2) return false;
      *out = wal::DecodeFixed16(p);
      return true;
    case wal::binary::kInt:
      if (left != 4) return false;
      *out = static_cast<int32_t>(wal::DecodeFixed32(p));
      return true;
    case wal::binary::kLong:
      if (left != 8) return false;
      *out = Fold(wal::DecodeFixed64(p));
      return true;
    case wal::binary::kFloat: {
      if (left != 4) return false;
      uint32_t bits = wal::DecodeFixed32(p);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      if (f != f) bits = 0x7fc00000;  // Float.floatToIntBits: one NaN
      *out = static_cast<int32_t>(bits);
      return true;
    }
    case wal::binary::kDouble: {
      if (left != 8) return false;
      uint64_t bits = wal::DecodeFixed64(p);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      if (d != d) bits = 0x7ff8000000000000ULL;
      *out = Fold(bits);
      return true;
    }
    case wal::binary::kString: {
      if (left < 4 || wal::DecodeFixed32(p) != left - 4) return false;
      *out = wal::JavaStringHash(std::string_view(p + 4, left - 4));
      return true;
    }
    case wal::binary::kUuid: {
      if (left != 16) return false;
      *out = Fold(wal::DecodeFixed64(p) ^ wal::DecodeFixed64(p + 8));
      return true;
    }
    default: return false;
  }
}

int32_t IgniteValueHash(int8_t type, std::string_view b) {
  uint32_t h = 1;
  for (size_t i = 0; i < b.size(); ++i) {
    auto c = static_cast<int8_t>(b[i]);
    if (i == 0 && type == wal::ignite::kObjectEnum && static_cast<uint8_t>(c) == wal::binary::kBinaryEnum)
      c = wal::binary::kEnum;
    h = 31 * h + static_cast<uint32_t>(static_cast<int32_t>(c));
  }
  return static_cast<int32_t>(h);
}

int32_t IgniteVersionHash(const wal::ignite_page::RowVersion& v) {
  uint32_t h = v.topology_version;
  h = 31 * h + (v.node_order & 0x07FFFFFFu);
  h = 31 * h + static_cast<uint32_t>(Fold(v.order));
  return static_cast<int32_t>(h);
}

void IgnitePartitionHash::Add(const wal::ignite_page::Row& row) {
  if (row.expire_time > 0) return;
  int32_t key = 0;
  if (!IgniteKeyHash(row.key_type, row.key, &key)) known = false;
  hash = static_cast<int32_t>(static_cast<uint32_t>(hash) + static_cast<uint32_t>(key) +
                              static_cast<uint32_t>(IgniteValueHash(row.value_type, row.value)));
  ver_hash =
      static_cast<int32_t>(static_cast<uint32_t>(ver_hash) + static_cast<uint32_t>(IgniteVersionHash(row.version)));
}

}  // namespace recovery
