// Apache Ignite's cache objects (a DataEntry's key and value from an Ignite segment) as
// text: primitives and strings decoded, a binary object as its type id and the values of
// its fields in stored order (with the node's binary metadata, binary_meta.h, its type's
// name and the fields' names), everything else as hex.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wal {

class BinaryTypes;

// The text of a cache object of type `type` (ignite::kObject*) with these bytes:
//   regular (1) int, long, short, byte  -> decimal        "42"
//               String                  -> the string     "acct-7"
//               boolean, char, float, double, UUID -> their usual spelling
//               anything else           -> "0x" and hex
//   byte array (2)                      -> "0x" and hex
//   binary object (100), or regular holding one -> "binary(<type id>){v1,v2,...}" (strings
//               quoted), or "binary(<type id>)0x<hex>" when its fields cannot be read;
//               with `types` knowing the type: "binary(<type id> <type name>){f1=v1,...}"
//               (names when the object's schema is known and has as many fields);
//               an object with raw data (Binarylizable's raw writer) ends in "+raw(0x<hex>)"
//   binary enum (101)                   -> "enum(<type id>):<ordinal>"
//   TRANSFORMED (-3), other types       -> "0x" and hex
std::string CacheObjectText(int8_t type, std::string_view bytes, const BinaryTypes* types = nullptr);

// A short name of what the object holds: "int", "long", "String", "byte[]", "binary",
// "enum", "transformed", ...
std::string CacheObjectClass(int8_t type, std::string_view bytes);

// Lower-case hex of the bytes.
std::string Hex(std::string_view bytes);

}  // namespace wal
