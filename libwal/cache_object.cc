#include "libwal/cache_object.h"

#include <fmt/format.h>

#include "libwal/binary_text.h"
#include "libwal/coding.h"
#include "libwal/ignite_format.h"

namespace wal {
namespace {

// A binary object standing alone: its text, or when its length cannot be trusted its
// type and its bytes in hex.
std::string TopObject(std::string_view b, const BinaryTypes* types) {
  BinaryText text(types, b.size());
  std::string out;
  size_t length = 0;
  if (text.Object(b, 0, b.size(), &out, &length)) return out;
  if (b.size() < binary::kHeader || static_cast<uint8_t>(b[0]) != binary::kObject) return "0x" + Hex(b);
  out = "binary(";
  text.AppendTypeId(&out, static_cast<int32_t>(DecodeFixed32(b.data() + 4)));
  return out + ")0x" + Hex(b);
}

// One value that is the whole of b, or its bytes in hex.
std::string TopValue(std::string_view b, const BinaryTypes* types) {
  BinaryText text(types, b.size());
  std::string out;
  size_t at = 0;
  if (text.Value(b, &at, b.size(), true, &out) && at == b.size()) return out;
  return "0x" + Hex(b);
}

}  // namespace

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

std::string CacheObjectText(int8_t type, std::string_view b, const BinaryTypes* types) {
  const bool object = !b.empty() && static_cast<uint8_t>(b[0]) == binary::kObject;
  switch (type) {
    case ignite::kObjectRegular: return object ? TopObject(b, types) : TopValue(b, types);
    case ignite::kObjectBinary: return TopObject(b, types);
    case ignite::kObjectEnum:
      if (!b.empty()) {
        const auto code = static_cast<uint8_t>(b[0]);
        if (code == binary::kBinaryEnum || code == binary::kEnum) return TopValue(b, types);
      }
      return "0x" + Hex(b);
    default: return "0x" + Hex(b);
  }
}

std::string CacheObjectClass(int8_t type, std::string_view b) {
  switch (type) {
    case ignite::kObjectByteArray: return "byte[]";
    case ignite::kObjectBinary: return "binary";
    case ignite::kObjectEnum: return "enum";
    case ignite::kObjectTransformed: return "transformed";
    case ignite::kObjectRegular: break;
    default: return fmt::format("type {}", type);
  }
  if (b.empty()) return "empty";
  using namespace binary;
  switch (static_cast<uint8_t>(b[0])) {
    case kByte: return "byte";
    case kShort: return "short";
    case kInt: return "int";
    case kLong: return "long";
    case kFloat: return "float";
    case kDouble: return "double";
    case kChar: return "char";
    case kBoolean: return "boolean";
    case kString: return "String";
    case kUuid: return "UUID";
    case kDate: return "Date";
    case kTimestamp: return "Timestamp";
    case kTime: return "Time";
    case kDecimal: return "BigDecimal";
    case kByteArr: return "byte[]";
    case kShortArr: return "short[]";
    case kIntArr: return "int[]";
    case kLongArr: return "long[]";
    case kFloatArr: return "float[]";
    case kDoubleArr: return "double[]";
    case kCharArr: return "char[]";
    case kBooleanArr: return "boolean[]";
    case kStringArr: return "String[]";
    case kUuidArr: return "UUID[]";
    case kDateArr: return "Date[]";
    case kTimestampArr: return "Timestamp[]";
    case kTimeArr: return "Time[]";
    case kDecimalArr: return "BigDecimal[]";
    case kObjectArr: return "Object[]";
    case kEnumArr: return "enum[]";
    case kCollection: return "Collection";
    case kMap: return "Map";
    case kEnum:
    case kBinaryEnum: return "enum";
    case kClass: return "Class";
    case kNull: return "null";
    case kObject:
    case kWrapped: return "binary";
    default: return fmt::format("code {}", static_cast<uint8_t>(b[0]));
  }
}

}  // namespace wal
