// Values in Apache Ignite's binary format (GridBinaryMarshaller) as text, for
// cache_object.h. A value is a type code byte and its data, little-endian:
//   1 byte · 2 short · 3 int · 4 long · 5 float · 6 double · 7 char (u16) · 8 boolean
//   9 String: i32 n, n bytes of UTF-8 · 10 UUID: i64 most, i64 least significant bits
//   11 Date, 36 Time: i64 ms since the epoch · 33 Timestamp: i64 ms, i32 ns below the ms
//   30 BigDecimal: i32 scale, i32 n, n bytes of magnitude, big-endian, sign in the top bit
//   12..19 byte[] short[] int[] long[] float[] double[] char[] boolean[]: i32 n, n elements
//   20 String[] · 21 UUID[] · 22 Date[] · 31 BigDecimal[] · 34 Timestamp[] · 37 Time[]:
//      i32 n, n values each with its code (or 101 null)
//   23 Object[] · 29 enum[]: component type, i32 n, n values
//   24 collection: i32 n, u8 kind, n values · 25 map: i32 n, u8 kind, n keys and values
//   28 enum, 38 binary enum: type, i32 ordinal · 32 Class: type
//   27 binary object in a byte array: i32 n, n bytes, i32 the object's start in them
//   101 null · 102 handle: i32 d, the value d bytes before this code, in the same buffer
//   103 binary object: 24-byte header, fields, raw data, footer (BinaryText::Object)
//   0xfe OptimizedMarshaller's bytes: i32 n, n bytes (shown in hex)
// where a type is an i32 type id, followed when it is 0 by the class name as a String.
//
// Everything is bounded by the bytes: a count is checked against what is left before a
// loop runs, nesting is at most kMaxDepth, and the work and output of one cache object
// are capped by multiples of its size (handles are followed only below a smaller cap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wal {

class BinaryTypes;

namespace binary {
enum Code : uint8_t {
  kByte = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kFloat = 5,
  kDouble = 6,
  kChar = 7,
  kBoolean = 8,
  kString = 9,
  kUuid = 10,
  kDate = 11,
  kByteArr = 12,
  kShortArr = 13,
  kIntArr = 14,
  kLongArr = 15,
  kFloatArr = 16,
  kDoubleArr = 17,
  kCharArr = 18,
  kBooleanArr = 19,
  kStringArr = 20,
  kUuidArr = 21,
  kDateArr = 22,
  kObjectArr = 23,
  kCollection = 24,
  kMap = 25,
  kWrapped = 27,
  kEnum = 28,
  kEnumArr = 29,
  kDecimal = 30,
  kDecimalArr = 31,
  kClass = 32,
  kTimestamp = 33,
  kTimestampArr = 34,
  kTime = 36,
  kTimeArr = 37,
  kBinaryEnum = 38,
  kNull = 101,
  kHandle = 102,
  kObject = 103,
  kOptimized = 0xfe,
};
inline constexpr size_t kHeader =
    24;  // 103 · version · u16 flags · type id · hash · length · schema id · schema offset
inline constexpr int kMaxDepth = 32;          // values nested in one another, handles followed included
inline constexpr size_t kMaxClassName = 256;  // bytes of a class name read from the bytes, shown
}  // namespace binary

// One cache object's decoder: the budgets are per instance, sized by `input_size`.
class BinaryText {
 public:
  BinaryText(const BinaryTypes* types, size_t input_size);

  // Appends the text of the value at buf[*at], which must end by `end`, and moves *at
  // past it; false, with *out as it was, when it cannot be read (an unknown code, a count
  // or length past `end`, too deep, over budget). `top`: a String or char is written as
  // itself rather than quoted (a cache object that is one).
  bool Value(std::string_view buf, size_t* at, size_t end, bool top, std::string* out);

  // The binary object at buf[start], which must end by `end` (binary_text_object.cc): false, with *out as it
  // was, when its header cannot be read or its length runs past `end`. Otherwise
  // "binary(<type>){<fields>}" (cache_object.h), or "binary(<type>)0x<hex>" when its
  // layout (schema, raw data's offset, field offsets) does not hold together, and
  // *length its length.
  bool Object(std::string_view buf, size_t start, size_t end, std::string* out, size_t* length);

  // "<type id>", and " <type name>" when the binary metadata knows the type.
  void AppendTypeId(std::string* out, int32_t type_id) const;

 private:
  struct Cursor;
  bool Body(Cursor* c, size_t start, bool top, std::string* out);
  bool TypeRef(Cursor* c, std::string* out) const;
  bool PrimitiveArray(Cursor* c, uint8_t code, std::string* out);
  bool TypedArray(Cursor* c, uint8_t element, const char* name, std::string* out);
  bool Sequence(Cursor* c, size_t n, std::string* out);
  bool Handle(Cursor* c, size_t start, std::string* out);
  bool Followable(const char* target, const std::string& out) const;

  const BinaryTypes* types_;
  size_t soft_limit_;  // work or output past which handles are shown, not followed
  size_t hard_limit_;  // work or output past which no value is read
  size_t work_ = 0;    // values read plus the bytes of their strings and arrays
  int depth_ = 0;
  std::vector<const char*> open_;  // objects and containers being written: a handle to one is a cycle
};

}  // namespace wal
