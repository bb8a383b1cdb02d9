#include "libwal/binary_text.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/coding.h"
#include "libwal/ids.h"
#include "libwal/java_text.h"
#include "libwal/printable.h"

namespace wal {

using namespace binary;

namespace {

// Marks an object or container as being written for as long as it is in scope.
class OpenScope {
 public:
  OpenScope(std::vector<const char*>* open, const char* p) : open_(open) { open_->push_back(p); }
  ~OpenScope() { open_->pop_back(); }
  OpenScope(const OpenScope&) = delete;
  OpenScope& operator=(const OpenScope&) = delete;

 private:
  std::vector<const char*>* open_;
};

template <typename... Args>
void Put(std::string* out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), f, std::forward<Args>(args)...);
}

size_t Width(uint8_t code) {
  switch (code) {
    case kByte:
    case kBoolean:
    case kByteArr:
    case kBooleanArr: return 1;
    case kShort:
    case kChar:
    case kShortArr:
    case kCharArr: return 2;
    case kInt:
    case kFloat:
    case kIntArr:
    case kFloatArr: return 4;
    default: return 8;  // long, double and their arrays
  }
}

// One primitive of `code`'s kind (byte to boolean, or their array's) at p.
void AppendPrimitive(std::string* out, uint8_t code, const char* p) {
  switch (code) {
    case kByte:
    case kByteArr: Put(out, "{}", static_cast<int8_t>(p[0])); break;
    case kBoolean:
    case kBooleanArr: *out += p[0] != 0 ? "true" : "false"; break;
    case kShort:
    case kShortArr: Put(out, "{}", static_cast<int16_t>(DecodeFixed16(p))); break;
    case kChar:
    case kCharArr: AppendQuotedChar(out, DecodeFixed16(p)); break;
    case kInt:
    case kIntArr: Put(out, "{}", static_cast<int32_t>(DecodeFixed32(p))); break;
    case kFloat:
    case kFloatArr: {
      float f;
      const uint32_t bits = DecodeFixed32(p);
      std::memcpy(&f, &bits, sizeof f);
      Put(out, "{}", f);
      break;
    }
    case kLong:
    case kLongArr: Put(out, "{}", static_cast<int64_t>(DecodeFixed64(p))); break;
    default: {
      double d;
      const uint64_t bits = DecodeFixed64(p);
      std::memcpy(&d, &bits, sizeof d);
      Put(out, "{}", d);
      break;
    }
  }
}

const char* ArrayName(uint8_t code) {
  switch (code) {
    case kShortArr: return "short";
    case kIntArr: return "int";
    case kLongArr: return "long";
    case kFloatArr: return "float";
    case kDoubleArr: return "double";
    case kCharArr: return "char";
    default: return "boolean";
  }
}

// Ignite's collection and map kinds (GridBinaryMarshaller's USER_SET ... SINGLETON_LIST,
// HASH_MAP, LINKED_HASH_MAP); a user's own class is "set", "collection" or "map".
void AppendKind(std::string* out, bool map, int8_t kind) {
  static constexpr const char* kCollections[] = {"set",     "collection",    "ArrayList",    "LinkedList",
                                                 "HashSet", "LinkedHashSet", "SingletonList"};
  static constexpr const char* kMaps[] = {"map", "HashMap", "LinkedHashMap"};
  if (!map && kind >= -1 && kind <= 5) {
    *out += kCollections[kind + 1];
  } else if (map && kind >= 0 && kind <= 2) {
    *out += kMaps[kind];
  } else {
    Put(out, "{}({})", map ? "map" : "collection", kind);
  }
}

}  // namespace

// A bounded read of buf[at, end).
struct BinaryText::Cursor {
  std::string_view buf;
  size_t at;
  size_t end;

  size_t left() const { return end - at; }
  const char* p() const { return buf.data() + at; }
  bool U8(uint8_t* v) {
    if (left() < 1) return false;
    *v = static_cast<uint8_t>(buf[at++]);
    return true;
  }
  bool I32(int32_t* v) {
    if (left() < 4) return false;
    *v = static_cast<int32_t>(DecodeFixed32(p()));
    at += 4;
    return true;
  }
  bool I64(int64_t* v) {
    if (left() < 8) return false;
    *v = static_cast<int64_t>(DecodeFixed64(p()));
    at += 8;
    return true;
  }
  // An i32 count of items of at least `min` bytes each that the rest can hold.
  bool Count(size_t min, size_t* n) {
    int32_t v;
    if (!I32(&v) || v < 0 || static_cast<size_t>(v) > left() / min) return false;
    *n = static_cast<size_t>(v);
    return true;
  }
};

BinaryText::BinaryText(const BinaryTypes* types, size_t input_size)
    : types_(types), soft_limit_(8 * input_size + 4096), hard_limit_(64 * input_size + 65536) {}

void BinaryText::AppendTypeId(std::string* out, int32_t type_id) const {
  Put(out, "{}", type_id);
  const BinaryType* type = types_ != nullptr ? types_->Find(type_id) : nullptr;
  if (type != nullptr && !type->name.empty()) {
    out->push_back(' ');
    *out += type->name;
  }
}

bool BinaryText::Value(std::string_view buf, size_t* at, size_t end, bool top, std::string* out) {
  if (end > buf.size() || *at >= end) return false;
  if (depth_ >= kMaxDepth || work_ > hard_limit_ || out->size() > hard_limit_) return false;
  ++work_;
  ++depth_;
  const size_t mark = out->size();
  Cursor c{buf, *at + 1, end};
  const bool ok = Body(&c, *at, top, out);
  --depth_;
  if (!ok) {
    out->resize(mark);
    return false;
  }
  *at = c.at;
  return true;
}

bool BinaryText::Body(Cursor* c, size_t start, bool top, std::string* out) {
  const auto code = static_cast<uint8_t>(c->buf[start]);
  switch (code) {
    case kNull: *out += "null"; return true;
    case kByte:
    case kShort:
    case kInt:
    case kLong:
    case kFloat:
    case kDouble:
    case kBoolean:
    case kChar: {
      const size_t n = Width(code);
      if (c->left() < n) return false;
      if (code == kChar && top) {
        const uint16_t ch = DecodeFixed16(c->p());
        if (ch >= 0x20 && ch < 0x7f) {
          out->push_back(static_cast<char>(ch));
        } else {
          Put(out, "U+{:04X}", ch);
        }
      } else {
        AppendPrimitive(out, code, c->p());
      }
      c->at += n;
      return true;
    }
    case kString: {
      size_t n;
      if (!c->Count(1, &n)) return false;
      work_ += n;
      if (top) {
        out->append(c->p(), n);
      } else {
        AppendQuotedString(out, std::string_view(c->p(), n));
      }
      c->at += n;
      return true;
    }
    case kUuid:
      if (c->left() < 16) return false;
      *out += Uuid{DecodeFixed64(c->p()), DecodeFixed64(c->p() + 8)}.ToString();
      c->at += 16;
      return true;
    case kDate:
    case kTime:
    case kTimestamp: {
      int64_t ms;
      int32_t ns = 0;
      if (!c->I64(&ms)) return false;
      if (code == kTimestamp && (!c->I32(&ns) || ns < 0 || ns > 999999)) return false;
      if (code == kTime) {
        AppendTimeOfDay(out, ms);
      } else {
        AppendInstant(out, ms, ns, code == kTimestamp);
      }
      return true;
    }
    case kDecimal: {
      int32_t scale;
      size_t n;
      if (!c->I32(&scale) || !c->Count(1, &n)) return false;
      if (!AppendBigDecimal(out, scale, std::string_view(c->p(), n))) return false;
      work_ += n;
      c->at += n;
      return true;
    }
    case kByteArr: {
      size_t n;
      if (!c->Count(1, &n)) return false;
      work_ += n;
      *out += "byte[0x";
      *out += Hex(std::string_view(c->p(), n));
      out->push_back(']');
      c->at += n;
      return true;
    }
    case kShortArr:
    case kIntArr:
    case kLongArr:
    case kFloatArr:
    case kDoubleArr:
    case kCharArr:
    case kBooleanArr: return PrimitiveArray(c, code, out);
    case kStringArr: return TypedArray(c, kString, "String", out);
    case kUuidArr: return TypedArray(c, kUuid, "UUID", out);
    case kDateArr: return TypedArray(c, kDate, "Date", out);
    case kTimestampArr: return TypedArray(c, kTimestamp, "Timestamp", out);
    case kTimeArr: return TypedArray(c, kTime, "Time", out);
    case kDecimalArr: return TypedArray(c, kDecimal, "BigDecimal", out);
    case kObjectArr:
    case kEnumArr: {
      OpenScope open(&open_, c->buf.data() + start);
      size_t n;
      *out += "array(";
      if (!TypeRef(c, out) || !c->Count(1, &n)) return false;
      *out += ")[";
      if (!Sequence(c, n, out)) return false;
      out->push_back(']');
      return true;
    }
    case kCollection:
    case kMap: {
      OpenScope open(&open_, c->buf.data() + start);
      const bool map = code == kMap;
      size_t n;
      uint8_t kind;
      if (!c->Count(map ? 2 : 1, &n) || !c->U8(&kind)) return false;
      AppendKind(out, map, static_cast<int8_t>(kind));
      out->push_back(map ? '{' : '[');
      for (size_t i = 0; i < n; ++i) {
        if (i != 0) out->push_back(',');
        if (!Sequence(c, 1, out)) return false;
        if (map) {
          out->push_back('=');
          if (!Sequence(c, 1, out)) return false;
        }
      }
      out->push_back(map ? '}' : ']');
      return true;
    }
    case kEnum:
    case kBinaryEnum: {
      int32_t ordinal;
      *out += "enum(";
      if (!TypeRef(c, out) || !c->I32(&ordinal)) return false;
      Put(out, "):{}", ordinal);
      return true;
    }
    case kClass:
      *out += "class(";
      if (!TypeRef(c, out)) return false;
      out->push_back(')');
      return true;
    case kWrapped: {
      size_t n, length;
      int32_t inner;
      if (!c->Count(1, &n)) return false;
      const std::string_view bytes(c->p(), n);
      c->at += n;
      if (!c->I32(&inner) || inner < 0 || static_cast<size_t>(inner) >= n) return false;
      return Object(bytes, static_cast<size_t>(inner), n, out, &length);
    }
    case kObject: {
      size_t length;
      if (!Object(c->buf, start, c->end, out, &length)) return false;
      c->at = start + length;
      return true;
    }
    case kHandle: return Handle(c, start, out);
    case kOptimized: {
      size_t n;
      if (!c->Count(1, &n)) return false;
      work_ += n;
      *out += "optimized(0x";
      *out += Hex(std::string_view(c->p(), n));
      out->push_back(')');
      c->at += n;
      return true;
    }
    default: return false;
  }
}

bool BinaryText::TypeRef(Cursor* c, std::string* out) const {
  int32_t id;
  if (!c->I32(&id)) return false;
  if (id != 0) {
    AppendTypeId(out, id);
    return true;
  }
  uint8_t code;
  size_t n;
  if (!c->U8(&code) || code != kString || !c->Count(1, &n)) return false;
  *out += "0 ";
  *out += Printable(std::string_view(c->p(), n), kMaxClassName);
  c->at += n;
  return true;
}

bool BinaryText::PrimitiveArray(Cursor* c, uint8_t code, std::string* out) {
  const size_t w = Width(code);
  size_t n;
  if (!c->Count(w, &n)) return false;
  work_ += n * w;
  *out += ArrayName(code);
  out->push_back('[');
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) out->push_back(',');
    AppendPrimitive(out, code, c->p() + i * w);
  }
  out->push_back(']');
  c->at += n * w;
  return true;
}

bool BinaryText::TypedArray(Cursor* c, uint8_t element, const char* name, std::string* out) {
  size_t n;
  if (!c->Count(1, &n)) return false;
  *out += name;
  out->push_back('[');
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) out->push_back(',');
    if (c->left() == 0) return false;
    const auto code = static_cast<uint8_t>(*c->p());
    if ((code != element && code != kNull) || !Sequence(c, 1, out)) return false;
  }
  out->push_back(']');
  return true;
}

// n values one after another, comma-separated.
bool BinaryText::Sequence(Cursor* c, size_t n, std::string* out) {
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) out->push_back(',');
    if (!Value(c->buf, &c->at, c->end, false, out)) return false;
  }
  return true;
}

// A handle is followed, and its value written in its place, unless it points outside
// the buffer, at an object or container being written (a cycle), or past the budget;
// then it is written "@handle(-<distance>)".
bool BinaryText::Handle(Cursor* c, size_t start, std::string* out) {
  int32_t distance;
  if (!c->I32(&distance)) return false;
  if (distance > 0 && static_cast<size_t>(distance) <= start) {
    size_t target = start - static_cast<size_t>(distance);
    if (Followable(c->buf.data() + target, *out) && Value(c->buf, &target, c->buf.size(), false, out)) return true;
  }
  Put(out, "@handle({})", -static_cast<int64_t>(distance));
  return true;
}

bool BinaryText::Followable(const char* target, const std::string& out) const {
  return work_ < soft_limit_ && out.size() < soft_limit_ &&
         std::find(open_.begin(), open_.end(), target) == open_.end();
}

}  // namespace wal
