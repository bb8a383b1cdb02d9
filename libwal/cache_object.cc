#include "libwal/cache_object.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "libwal/binary_meta.h"
#include "libwal/coding.h"
#include "libwal/ids.h"
#include "libwal/ignite_format.h"

namespace wal {
namespace {

// Ignite's binary type codes (GridBinaryMarshaller) that are decoded.
enum : uint8_t {
  kByte = 1, kShort = 2, kInt = 3, kLong = 4, kFloat = 5, kDouble = 6, kChar = 7, kBoolean = 8,
  kString = 9, kUuid = 10, kBinaryEnum = 38, kNull = 101, kObject = 103,
};
constexpr size_t kObjectHeader = 24;  // 103 · version · u16 flags · type id · hash · length · schema id · schema offset

double Float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return static_cast<double>(f);
}

double Double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// One self-typed value at b[*at]; false when its type is not one read here or it runs
// past the end. `quote`: strings in quotes (inside a binary object's field list).
bool Value(std::string_view b, size_t* at, bool quote, std::string* out) {
  if (*at >= b.size()) return false;
  const auto code = static_cast<uint8_t>(b[*at]);
  const char* p = b.data() + *at + 1;
  const size_t left = b.size() - *at - 1;
  size_t n = 0;
  switch (code) {
    case kByte: n = 1; if (left >= n) *out += fmt::format("{}", static_cast<int8_t>(p[0])); break;
    case kBoolean: n = 1; if (left >= n) *out += p[0] != 0 ? "true" : "false"; break;
    case kShort: n = 2; if (left >= n) *out += fmt::format("{}", static_cast<int16_t>(DecodeFixed16(p))); break;
    case kChar:
      n = 2;
      if (left >= n) {
        const uint16_t c = DecodeFixed16(p);
        *out += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : fmt::format("U+{:04X}", c);
      }
      break;
    case kInt: n = 4; if (left >= n) *out += fmt::format("{}", static_cast<int32_t>(DecodeFixed32(p))); break;
    case kFloat: n = 4; if (left >= n) *out += fmt::format("{}", Float(DecodeFixed32(p))); break;
    case kLong: n = 8; if (left >= n) *out += fmt::format("{}", static_cast<int64_t>(DecodeFixed64(p))); break;
    case kDouble: n = 8; if (left >= n) *out += fmt::format("{}", Double(DecodeFixed64(p))); break;
    case kUuid: n = 16; if (left >= n) *out += Uuid{DecodeFixed64(p), DecodeFixed64(p + 8)}.ToString(); break;
    case kNull: n = 0; *out += "null"; break;
    case kString: {
      if (left < 4) return false;
      const uint32_t len = DecodeFixed32(p);
      if (len > left - 4) return false;
      n = 4 + size_t{len};
      if (quote) *out += '"';
      out->append(p + 4, len);
      if (quote) *out += '"';
      break;
    }
    default:
      return false;
  }
  if (left < n) return false;
  *at += 1 + n;
  return true;
}

// A binary object: its type id and, when every field is of a type read here, the
// values between the header and the schema; with the type's metadata, its name and the
// fields' names (those of the schema the object names, when it has as many fields).
std::string BinaryObject(std::string_view b, const BinaryTypes* types) {
  if (b.size() < kObjectHeader || static_cast<uint8_t>(b[0]) != kObject) return "0x" + Hex(b);
  const auto type_id = static_cast<int32_t>(DecodeFixed32(b.data() + 4));
  const uint32_t length = DecodeFixed32(b.data() + 12);
  const uint16_t flags = DecodeFixed16(b.data() + 2);
  const bool has_schema = (flags & 0x0002) != 0;
  const bool has_raw = (flags & 0x0004) != 0;  // raw bytes after the fields, their offset last
  const BinaryType* type = types != nullptr ? types->Find(type_id) : nullptr;
  std::string out = type != nullptr && !type->name.empty() ? fmt::format("binary({} {})", type_id, type->name)
                                                           : fmt::format("binary({})", type_id);
  if (length > b.size() || length < kObjectHeader + (has_raw && has_schema ? 4 : 0)) return out + "0x" + Hex(b);
  // header | fields | raw data | schema (footer) | with both, the raw data's offset. Offset
  // 20 holds the schema's offset, or without one, the raw data's.
  const uint32_t at20 = DecodeFixed32(b.data() + 20);
  uint32_t fields_end = length, raw_end = length;
  if (has_schema) {
    fields_end = raw_end = at20;
    if (has_raw) fields_end = DecodeFixed32(b.data() + length - 4);
  } else if (has_raw) {
    fields_end = at20;
  }
  if (raw_end > length || fields_end > raw_end || fields_end < kObjectHeader) return out + "0x" + Hex(b);
  std::vector<std::string> values;
  size_t at = kObjectHeader;
  std::string_view fields = b.substr(0, fields_end);
  while (at < fields.size()) {
    values.emplace_back();
    if (!Value(fields, &at, true, &values.back())) return out + "0x" + Hex(b);
  }
  const std::vector<std::string>* names = nullptr;
  std::vector<std::string> named;
  if (type != nullptr && has_schema) {
    auto schema = type->schemas.find(static_cast<int32_t>(DecodeFixed32(b.data() + 16)));
    if (schema != type->schemas.end() && schema->second.size() == values.size()) {
      for (int32_t id : schema->second) {
        auto name = type->field_names.find(id);
        if (name == type->field_names.end()) break;
        named.push_back(name->second);
      }
      if (named.size() == values.size()) names = &named;
    }
  }
  out += '{';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += ',';
    if (names != nullptr) {
      out += (*names)[i];
      out += '=';
    }
    out += values[i];
  }
  out += '}';
  if (has_raw) out += "+raw(0x" + Hex(b.substr(fields_end, raw_end - fields_end)) + ')';
  return out;
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
  switch (type) {
    case ignite::kObjectRegular: {
      if (!b.empty() && static_cast<uint8_t>(b[0]) == kObject) return BinaryObject(b, types);
      std::string out;
      size_t at = 0;
      if (Value(b, &at, false, &out) && at == b.size()) return out;
      return "0x" + Hex(b);
    }
    case ignite::kObjectBinary:
      return BinaryObject(b, types);
    case ignite::kObjectEnum:
      if (b.size() >= 9 && static_cast<uint8_t>(b[0]) == kBinaryEnum) {
        return fmt::format("enum({}):{}", static_cast<int32_t>(DecodeFixed32(b.data() + 1)),
                           static_cast<int32_t>(DecodeFixed32(b.data() + 5)));
      }
      return "0x" + Hex(b);
    default:
      return "0x" + Hex(b);
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
    case kObject: return "binary";
    default: return fmt::format("code {}", static_cast<uint8_t>(b[0]));
  }
}

}  // namespace wal
