// Ignite cache objects as text (libwal/cache_object.h): every type of Ignite's binary
// format, built byte by byte as Ignite's BinaryWriterExImpl lays it out; a field that
// cannot be read leaves its neighbours named; handles, depth and size stay bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/coding.h"
#include "libwal/ignite_format.h"

namespace wal {
namespace {

std::string Code(uint8_t c) { return std::string(1, static_cast<char>(c)); }
std::string Le16(uint16_t v) {
  std::string s;
  PutFixed16(&s, v);
  return s;
}
std::string Le32(int32_t v) {
  std::string s;
  PutFixed32(&s, static_cast<uint32_t>(v));
  return s;
}
std::string Le64(int64_t v) {
  std::string s;
  PutFixed64(&s, static_cast<uint64_t>(v));
  return s;
}

std::string Int(int32_t v) { return Code(3) + Le32(v); }
std::string Long(int64_t v) { return Code(4) + Le64(v); }
std::string Str(std::string_view s) { return Code(9) + Le32(static_cast<int32_t>(s.size())) + std::string(s); }
std::string Null() { return Code(101); }
std::string Handle(int32_t distance) { return Code(102) + Le32(distance); }
std::string Decimal(int32_t scale, const std::string& magnitude) {
  return Code(30) + Le32(scale) + Le32(static_cast<int32_t>(magnitude.size())) + magnitude;
}

enum class Footer { kCompact1, kCompact2, kCompact4, kFull1 };

struct ObjectSpec {
  int32_t type_id = 1;
  std::vector<std::string> fields;  // each a value with its type code
  Footer footer = Footer::kCompact1;
  int32_t schema_id = 0;
  std::vector<int32_t> field_ids;  // for Footer::kFull1
  std::string class_name;          // written after the header when type_id is 0
};

// A binary object: 103, version 1, flags, type id, hash, length, schema id, footer
// offset; the class name for type id 0; the fields; the footer of their offsets.
std::string Object(const ObjectSpec& spec) {
  std::string b(24, '\0');
  b[0] = static_cast<char>(103);
  b[1] = 1;
  if (spec.type_id == 0) b += Str(spec.class_name);
  std::vector<uint32_t> offsets;
  for (const auto& f : spec.fields) {
    offsets.push_back(static_cast<uint32_t>(b.size()));
    b += f;
  }
  const auto footer_at = static_cast<uint32_t>(b.size());
  // One-byte offsets while they fit, as Ignite chooses.
  const Footer footer = spec.footer == Footer::kCompact1 && footer_at > 255 ? Footer::kCompact2 : spec.footer;
  for (size_t i = 0; i < offsets.size(); ++i) {
    switch (footer) {
      case Footer::kCompact1: b += static_cast<char>(offsets[i]); break;
      case Footer::kCompact2: b += Le16(static_cast<uint16_t>(offsets[i])); break;
      case Footer::kCompact4: b += Le32(static_cast<int32_t>(offsets[i])); break;
      case Footer::kFull1: b += Le32(spec.field_ids[i]) + static_cast<char>(offsets[i]); break;
    }
  }
  uint16_t flags = 0x0001;
  if (!spec.fields.empty()) flags |= 0x0002;
  if (footer != Footer::kFull1) flags |= 0x0020;
  if (footer == Footer::kCompact1 || footer == Footer::kFull1) flags |= 0x0008;
  if (footer == Footer::kCompact2) flags |= 0x0010;
  b[2] = static_cast<char>(flags);
  b[3] = static_cast<char>(flags >> 8);
  EncodeFixed32(&b[4], static_cast<uint32_t>(spec.type_id));
  EncodeFixed32(&b[12], static_cast<uint32_t>(b.size()));
  EncodeFixed32(&b[16], static_cast<uint32_t>(spec.schema_id));
  EncodeFixed32(&b[20], spec.fields.empty() ? 0 : footer_at);
  return b;
}

std::string Object(int32_t type_id, std::vector<std::string> fields) {
  ObjectSpec spec;
  spec.type_id = type_id;
  spec.fields = std::move(fields);
  return Object(spec);
}

std::string Object(std::vector<std::string> fields) { return Object(1, std::move(fields)); }

// The text of a binary object with these fields, or of one value as an object's field.
std::string Text(const std::string& bytes, const BinaryTypes* types = nullptr) {
  return CacheObjectText(ignite::kObjectBinary, bytes, types);
}
std::string FieldText(const std::string& value) {
  const std::string text = Text(Object({value}));
  const std::string head = "binary(1){";
  EXPECT_EQ(text.substr(0, head.size()), head) << text;
  return text.substr(head.size(), text.size() - head.size() - 1);
}

TEST(CacheObjectText, PrimitivesStringUuidAndNullInAnObject) {
  const std::string uuid = Code(10) + Le64(0x0123456789abcdefLL) + Le64(static_cast<int64_t>(0xfedcba9876543210ULL));
  EXPECT_EQ(Text(Object({Code(1) + "\xff", Code(2) + Le16(0x8000), Int(-7), Long(1LL << 40), Code(5) + Le32(0x3fc00000),
                         Code(6) + Le64(0x3fb999999999999aLL), Code(7) + Le16('x'), Code(8) + "\x01", Str("acct-7"),
                         uuid, Null()})),
            "binary(1){-1,-32768,-7,1099511627776,1.5,0.1,'x',true,\"acct-7\","
            "01234567-89ab-cdef-fedc-ba9876543210,null}");
  EXPECT_EQ(FieldText(Code(7) + Le16('\'')), "'\\''");
  EXPECT_EQ(FieldText(Code(7) + Le16(0xe9)), "'\\u00e9'");
}

TEST(CacheObjectText, DatesTimestampsAndTimesInUtc) {
  EXPECT_EQ(FieldText(Code(11) + Le64(1714566600250LL)), "2024-05-01T12:30:00.250Z");
  EXPECT_EQ(FieldText(Code(11) + Le64(0)), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FieldText(Code(11) + Le64(-1)), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FieldText(Code(11) + Le64(-2203891201000LL)), "1900-02-28T23:59:59.000Z");
  EXPECT_EQ(FieldText(Code(11) + Le64(253402300800000LL)), "+10000-01-01T00:00:00.000Z");
  EXPECT_EQ(FieldText(Code(11) + Le64(INT64_MIN)).substr(0, 1), "-");
  EXPECT_EQ(FieldText(Code(33) + Le64(1714566600250LL) + Le32(17)), "2024-05-01T12:30:00.250000017Z");
  EXPECT_EQ(FieldText(Code(36) + Le64(45000250)), "12:30:00.250Z");
  EXPECT_EQ(FieldText(Code(36) + Le64(1714566600250LL)), "2024-05-01T12:30:00.250Z");
  // Nanoseconds Ignite cannot have written (a Timestamp keeps those below the ms).
  const std::string bad = Code(33) + Le64(0) + Le32(1000000);
  EXPECT_EQ(FieldText(bad), "0x" + Hex(bad));
}

TEST(CacheObjectText, BigDecimalsAsJavaSpellsThem) {
  EXPECT_EQ(FieldText(Decimal(2, "\x04\xe2")), "12.50");
  EXPECT_EQ(FieldText(Decimal(3, "\x81")), "-0.001");
  EXPECT_EQ(FieldText(Decimal(-6, "\x0c")), "1.2E+7");
  EXPECT_EQ(FieldText(Decimal(10, "\x01")), "1E-10");
  EXPECT_EQ(FieldText(Decimal(0, std::string("\x00", 1))), "0");
  EXPECT_EQ(FieldText(Decimal(2, std::string("\x00", 1))), "0.00");
  const std::string two_70 = std::string("\x40", 1) + std::string(8, '\0');
  EXPECT_EQ(FieldText(Decimal(5, two_70)), "11805916207174113.03424");
  EXPECT_EQ(FieldText(Decimal(0, "\xc0" + std::string(8, '\0'))), "-1180591620717411303424");
  const std::string empty = Decimal(0, "");
  EXPECT_EQ(FieldText(empty), "0x" + Hex(empty));
}

TEST(CacheObjectText, PrimitiveArrays) {
  EXPECT_EQ(FieldText(Code(12) + Le32(3) + "\x01\x02\xff"), "byte[0x0102ff]");
  EXPECT_EQ(FieldText(Code(12) + Le32(0)), "byte[0x]");
  EXPECT_EQ(FieldText(Code(13) + Le32(2) + Le16(1) + Le16(0xffff)), "short[1,-1]");
  EXPECT_EQ(FieldText(Code(14) + Le32(2) + Le32(5) + Le32(-5)), "int[5,-5]");
  EXPECT_EQ(FieldText(Code(15) + Le32(1) + Le64(INT64_MAX)), "long[9223372036854775807]");
  EXPECT_EQ(FieldText(Code(16) + Le32(2) + Le32(0x3fc00000) + Le32(0x3dcccccd)), "float[1.5,0.1]");
  EXPECT_EQ(FieldText(Code(17) + Le32(1) + Le64(0x4000000000000000LL)), "double[2]");
  EXPECT_EQ(FieldText(Code(18) + Le32(3) + Le16('a') + Le16('"') + Le16(0x263a)), "char['a','\"','\\u263a']");
  EXPECT_EQ(FieldText(Code(19) + Le32(2) + Code(1) + Code(0)), "boolean[true,false]");
  EXPECT_EQ(FieldText(Code(14) + Le32(0)), "int[]");
}

TEST(CacheObjectText, ArraysOfSelfTypedValues) {
  EXPECT_EQ(FieldText(Code(20) + Le32(3) + Str("a") + Null() + Str("")), "String[\"a\",null,\"\"]");
  EXPECT_EQ(FieldText(Code(21) + Le32(1) + Code(10) + Le64(0) + Le64(1)), "UUID[00000000-0000-0000-0000-000000000001]");
  EXPECT_EQ(FieldText(Code(22) + Le32(1) + Code(11) + Le64(0)), "Date[1970-01-01T00:00:00.000Z]");
  EXPECT_EQ(FieldText(Code(34) + Le32(1) + Code(33) + Le64(0) + Le32(1)), "Timestamp[1970-01-01T00:00:00.000000001Z]");
  EXPECT_EQ(FieldText(Code(37) + Le32(2) + Code(36) + Le64(1000) + Null()), "Time[00:00:01.000Z,null]");
  EXPECT_EQ(FieldText(Code(31) + Le32(2) + Decimal(1, "\x0f") + Null()), "BigDecimal[1.5,null]");
  // An element of another type: Ignite refuses the array, and so it is hex.
  const std::string mixed = Code(20) + Le32(1) + Int(1);
  EXPECT_EQ(FieldText(mixed), "0x" + Hex(mixed));
}

TEST(CacheObjectText, ObjectArraysCollectionsMapsEnumsAndClasses) {
  EXPECT_EQ(FieldText(Code(23) + Le32(-1) + Le32(2) + Int(1) + Str("x")), "array(-1)[1,\"x\"]");
  EXPECT_EQ(FieldText(Code(23) + Le32(0) + Str("com.example.Item") + Le32(1) + Null()),
            "array(0 com.example.Item)[null]");
  EXPECT_EQ(FieldText(Code(24) + Le32(2) + Code(1) + Int(1) + Int(2)), "ArrayList[1,2]");
  EXPECT_EQ(FieldText(Code(24) + Le32(1) + Code(3) + Str("s")), "HashSet[\"s\"]");
  EXPECT_EQ(FieldText(Code(24) + Le32(0) + Code(0xff)), "set[]");
  EXPECT_EQ(FieldText(Code(24) + Le32(0) + Code(9)), "collection(9)[]");
  EXPECT_EQ(FieldText(Code(25) + Le32(2) + Code(1) + Str("a") + Int(1) + Str("b") + Null()),
            "HashMap{\"a\"=1,\"b\"=null}");
  EXPECT_EQ(FieldText(Code(25) + Le32(1) + Code(2) + Int(1) + Int(2)), "LinkedHashMap{1=2}");
  EXPECT_EQ(FieldText(Code(25) + Le32(0) + Code(0)), "map{}");
  EXPECT_EQ(FieldText(Code(28) + Le32(77) + Le32(2)), "enum(77):2");
  EXPECT_EQ(FieldText(Code(38) + Le32(77) + Le32(0)), "enum(77):0");
  EXPECT_EQ(FieldText(Code(28) + Le32(0) + Str("com.example.Color") + Le32(1)), "enum(0 com.example.Color):1");
  EXPECT_EQ(FieldText(Code(29) + Le32(77) + Le32(2) + Code(28) + Le32(77) + Le32(1) + Null()),
            "array(77)[enum(77):1,null]");
  EXPECT_EQ(FieldText(Code(32) + Le32(77)), "class(77)");
  EXPECT_EQ(FieldText(Code(0xfe) + Le32(2) + "\xac\xed"), "optimized(0xaced)");
  // Nested containers.
  EXPECT_EQ(
      FieldText(Code(24) + Le32(1) + Code(1) + Code(25) + Le32(1) + Code(1) + Int(1) + Code(14) + Le32(1) + Le32(2)),
      "ArrayList[HashMap{1=int[2]}]");
}

TEST(CacheObjectText, NestedAndWrappedObjectsWithNames) {
  ObjectSpec inner;
  inner.type_id = 20;
  inner.schema_id = 200;
  inner.fields = {Str("Oslo"), Int(7)};
  ObjectSpec outer;
  outer.type_id = 10;
  outer.schema_id = 100;
  outer.fields = {Long(5), Object(inner)};
  EXPECT_EQ(Text(Object(outer)), "binary(10){5,binary(20){\"Oslo\",7}}");
  BinaryTypes types;
  types.Add(10, BinaryType{"org.example.Person", {{1, "id"}, {2, "address"}}, {{100, {1, 2}}}});
  types.Add(20, BinaryType{"org.example.Address", {{3, "city"}, {4, "number"}}, {{200, {3, 4}}}});
  EXPECT_EQ(Text(Object(outer), &types),
            "binary(10 org.example.Person){id=5,address=binary(20 org.example.Address){city=\"Oslo\",number=7}}");
  // Wrapped in a byte array (PORTABLE_OBJ): the object at its start offset inside the bytes.
  const std::string bytes = "\xaa\xbb" + Object(inner);
  const std::string wrapped = Code(27) + Le32(static_cast<int32_t>(bytes.size())) + bytes + Le32(2);
  EXPECT_EQ(Text(Object({wrapped}), &types), "binary(1){binary(20 org.example.Address){city=\"Oslo\",number=7}}");
  // Type id 0: the class name follows the header.
  ObjectSpec unregistered;
  unregistered.type_id = 0;
  unregistered.class_name = "org.example.Point";
  unregistered.fields = {Int(3), Int(4)};
  EXPECT_EQ(Text(Object(unregistered)), "binary(0 org.example.Point){3,4}");
}

TEST(CacheObjectText, FootersOfEveryWidthAndFieldIds) {
  BinaryTypes types;
  types.Add(1, BinaryType{"T", {{11, "a"}, {12, "b"}}, {{9, {11, 12}}}});
  for (Footer footer : {Footer::kCompact1, Footer::kCompact2, Footer::kCompact4}) {
    ObjectSpec spec;
    spec.fields = {Int(1), Str("x")};
    spec.footer = footer;
    spec.schema_id = 9;
    EXPECT_EQ(Text(Object(spec), &types), "binary(1 T){a=1,b=\"x\"}");
  }
  // A full footer names the fields by its own ids, whatever the schema id.
  ObjectSpec full;
  full.fields = {Int(1), Str("x")};
  full.footer = Footer::kFull1;
  full.schema_id = 12345;
  full.field_ids = {12, 11};
  EXPECT_EQ(Text(Object(full), &types), "binary(1 T){b=1,a=\"x\"}");
  full.field_ids = {12, 13};
  EXPECT_EQ(Text(Object(full), &types), "binary(1 T){1,\"x\"}");
}

TEST(CacheObjectText, StringsInsideObjectsAreEscaped) {
  EXPECT_EQ(FieldText(Str("a\"b\\c")), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(FieldText(Str("l1\nl2\t\r")), "\"l1\\nl2\\t\\r\"");
  EXPECT_EQ(FieldText(Str(std::string("\x00\x01\x7f", 3))), "\"\\u0000\\u0001\\u007f\"");
  EXPECT_EQ(FieldText(Str("caf\xc3\xa9")), "\"caf\xc3\xa9\"");       // valid UTF-8 as it is
  EXPECT_EQ(FieldText(Str("\xff\xc3(")), "\"\\xff\\xc3(\"");         // not UTF-8: byte by byte
  EXPECT_EQ(FieldText(Str("\xed\xa0\x80")), "\"\\xed\\xa0\\x80\"");  // a surrogate
  // Standing alone, a String is itself (the callers quote the whole text).
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Str("a\"b\\c")), "a\"b\\c");
}

TEST(CacheObjectText, AFieldOfAnUnknownTypeIsHexAndTheOthersKeepTheirNames) {
  BinaryTypes types;
  types.Add(1, BinaryType{"T", {{1, "before"}, {2, "odd"}, {3, "after"}}, {{9, {1, 2, 3}}}});
  ObjectSpec spec;
  spec.schema_id = 9;
  spec.fields = {Int(42), Code(99) + "\x01\x02\x03", Str("x")};
  EXPECT_EQ(Text(Object(spec), &types), "binary(1 T){before=42,odd=0x63010203,after=\"x\"}");
  // A field that is longer than its value, or whose value runs past the next field.
  spec.fields = {Int(42) + Code(0), Str("x"), Code(14) + Le32(9) + Le32(1)};
  EXPECT_EQ(Text(Object(spec), &types), "binary(1 T){before=0x032a00000000,odd=\"x\",after=0x0e0900000001000000}");
}

TEST(CacheObjectText, AHandleIsTheObjectItPointsAt) {
  const std::string inner = Object(20, {Str("Oslo")});
  // Outer header (24 bytes), then inner at 24, then the handle at 24 + inner.size().
  const auto distance = static_cast<int32_t>(inner.size());
  EXPECT_EQ(Text(Object({inner, Handle(distance)})), "binary(1){binary(20){\"Oslo\"},binary(20){\"Oslo\"}}");
  // Back to the object being written: a cycle, shown as the handle.
  EXPECT_EQ(Text(Object({Int(1), Handle(29)})), "binary(1){1,@handle(-29)}");
  // Before the buffer's start, nowhere, or at something that is not a value.
  EXPECT_EQ(Text(Object({Handle(1000)})), "binary(1){@handle(-1000)}");
  EXPECT_EQ(Text(Object({Handle(0)})), "binary(1){@handle(0)}");
  EXPECT_EQ(Text(Object({Str("x"), Handle(4)})), "binary(1){\"x\",@handle(-4)}");
  // A collection holding itself.
  EXPECT_EQ(FieldText(Code(24) + Le32(1) + Code(1) + Handle(6)), "ArrayList[@handle(-6)]");
}

// Each object of the chain holds two handles to the one before: followed in full, the
// text would double with each link. The budget stops following them, and the text stays
// within a small multiple of the bytes.
TEST(CacheObjectText, HandlesCannotMultiplyTheText) {
  std::vector<std::string> fields = {Object(2, {Str(std::string(100, 'x'))})};
  size_t previous = 24;
  size_t at = 24 + fields[0].size();
  for (int i = 0; i < 40; ++i) {
    const auto d = static_cast<int32_t>(at + 24 - previous);
    fields.push_back(Object(3, {Handle(d), Handle(d + 5)}));
    previous = at;
    at += fields.back().size();
  }
  const std::string bytes = Object(fields);
  const auto begin = std::chrono::steady_clock::now();
  const std::string text = Text(bytes);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  EXPECT_LT(text.size(), 64 * bytes.size() + 65536 + 2 * bytes.size());
  EXPECT_NE(text.find("binary(3){binary(2){\"xxxx"), std::string::npos);
  EXPECT_NE(text.find("@handle("), std::string::npos);
}

TEST(CacheObjectText, NestingIsBoundedAndCountsAreChecked) {
  // 40 Object[]s, one in the other: deeper than is read, so that field is hex.
  std::string deep = Int(7);
  for (int i = 0; i < 40; ++i) deep = Code(23) + Le32(-1) + Le32(1) + deep;
  EXPECT_EQ(Text(Object({deep, Str("after")})), "binary(1){0x" + Hex(deep) + ",\"after\"}");
  // Counts the bytes cannot hold: nothing is allocated or looped for them.
  for (int code : {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 29, 31, 34, 37}) {
    const std::string huge =
        Code(static_cast<uint8_t>(code)) + (code == 23 || code == 29 ? Le32(-1) : "") + Le32(0x7fffffff) + "\x01";
    EXPECT_EQ(FieldText(huge), "0x" + Hex(huge)) << code;
    const std::string negative =
        Code(static_cast<uint8_t>(code)) + (code == 23 || code == 29 ? Le32(-1) : "") + Le32(-1) + "\x01";
    EXPECT_EQ(FieldText(negative), "0x" + Hex(negative)) << code;
  }
  const std::string long_string = Code(9) + Le32(100) + "abc";
  EXPECT_EQ(FieldText(long_string), "0x" + Hex(long_string));
}

TEST(CacheObjectText, ValuesStandingAlone) {
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Int(42)), "42");
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Str("acct-7")), "acct-7");
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Code(7) + Le16('x')), "x");
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Code(7) + Le16(0xe9)), "U+00E9");
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Code(20) + Le32(1) + Str("a")), "String[\"a\"]");
  EXPECT_EQ(CacheObjectText(ignite::kObjectRegular, Int(42) + Code(0)), "0x032a00000000");
  EXPECT_EQ(CacheObjectText(ignite::kObjectEnum, Code(38) + Le32(5) + Le32(3)), "enum(5):3");
  EXPECT_EQ(CacheObjectText(ignite::kObjectByteArray, "\x01\x02"), "0x0102");
  EXPECT_EQ(CacheObjectClass(ignite::kObjectRegular, Code(24)), "Collection");
  EXPECT_EQ(CacheObjectClass(ignite::kObjectRegular, Code(99)), "code 99");
}

// Every prefix and every one-byte change of an object holding each kind of value: text
// or hex, never a crash, a read past the end (the sanitizers watch) or a text out of
// proportion to the bytes.
TEST(CacheObjectText, DamagedObjectsAreReadOrShownInHex) {
  const std::string inner = Object(20, {Str("Oslo"), Int(7)});
  const std::string bytes = Object({inner, Handle(static_cast<int32_t>(inner.size())), Decimal(2, "\x04\xe2"),
                                    Code(24) + Le32(2) + Code(1) + Str("a") + Null(),
                                    Code(25) + Le32(1) + Code(1) + Int(1) + Code(11) + Le64(0),
                                    Code(23) + Le32(0) + Str("C") + Le32(1) + Code(38) + Le32(5) + Le32(1),
                                    Code(18) + Le32(1) + Le16('q'), Code(33) + Le64(5) + Le32(6)});
  ASSERT_EQ(Text(bytes).find("0x"), std::string::npos) << Text(bytes);
  auto bounded = [&](const std::string& b) {
    for (int8_t type : {ignite::kObjectRegular, ignite::kObjectBinary}) {
      EXPECT_LE(CacheObjectText(type, b).size(), 70 * b.size() + 65536 + 64);
    }
  };
  for (size_t n = 0; n <= bytes.size(); ++n) bounded(bytes.substr(0, n));
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int x : {0x01, 0x80, 0xff}) {
      std::string b = bytes;
      b[i] = static_cast<char>(static_cast<uint8_t>(b[i]) ^ x);
      bounded(b);
    }
  }
}

}  // namespace
}  // namespace wal
