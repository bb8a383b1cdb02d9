// Apache Ignite's cache objects (a DataEntry's key and value from an Ignite segment) as
// text: every value of Ignite's binary format decoded (binary_text.h), a binary object
// as its type id and its fields' values (with the node's binary metadata, binary_meta.h,
// its type's name and the fields' names); what cannot be read in hex.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wal {

class BinaryTypes;

// The text of a cache object of type `type` (ignite::kObject*) with these bytes:
//   regular (1) int, long, short, byte  -> decimal        "42"
//               String                  -> the string     "acct-7"
//               char                    -> itself, or "U+00E9" unless printable ASCII
//               boolean, float, double, UUID -> their usual spelling
//               any other value         -> as inside an object, below
//               bytes that are not one value -> "0x" and hex
//   byte array (2)                      -> "0x" and hex
//   binary object (100), or regular holding one -> "binary(<type id>){v1,v2,...}", or
//               "binary(<type id>)0x<hex>" when its layout cannot be read; with `types`
//               knowing the type "binary(<type id> <type name>){f1=v1,...}" (names when
//               the footer's field ids, or the schema it names, are all known; type id
//               0: "binary(0 <class name>)"); raw data (Binarylizable's raw writer) adds
//               "+raw(0x<hex>)"
//   binary enum (101)                   -> "enum(<type id>):<ordinal>"
//   TRANSFORMED (-3), other types       -> "0x" and hex
// Inside an object, array, collection or map (<T> a type id, and its name when known):
//   String "a\"b\\c" (escaped as java_text.h says) · char 'c' · null
//   Date 2024-05-01T12:30:00.250Z · Timestamp 2024-05-01T12:30:00.250000017Z
//   Time 12:30:00.250Z · BigDecimal as Java spells it (12.50, 1.2E+7)
//   byte[0x0102] · int[1,2] (short, long, float, double, char, boolean alike)
//   String["a",null] (UUID, Date, Timestamp, Time, BigDecimal alike)
//   Object[] and enum[]: array(<T>)[v1,...] · ArrayList[v1,...] (LinkedList, HashSet,
//   LinkedHashSet, SingletonList; "set" or "collection" for a user's class) ·
//   HashMap{k=v,...} (LinkedHashMap; "map") · enum(<T>):<ordinal> · class(<T>)
//   a binary object, also one wrapped in a byte array (27), as above
//   OptimizedMarshaller's bytes: optimized(0x<hex>)
//   a handle: the value it points at, or "@handle(-<distance>)" for a cycle, a target
//   outside the bytes, or past the budget (binary_text.h).
// A field that cannot be read is "0x" and its bytes (up to the next field's offset);
// the other fields keep their names and values.
std::string CacheObjectText(int8_t type, std::string_view bytes, const BinaryTypes* types = nullptr);

// A short name of what the object holds: "int", "long", "String", "byte[]", "binary",
// "enum", "transformed", ...
std::string CacheObjectClass(int8_t type, std::string_view bytes);

// Lower-case hex of the bytes.
std::string Hex(std::string_view bytes);

}  // namespace wal
