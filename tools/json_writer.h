// One JSON document written into a buffer, compact, in the order given: keys are never
// sorted, strings are escaped by AppendJsonString (valid UTF-8 kept, other bytes
// \u00NN, so names and paths that are not UTF-8 survive). Every command's --json output
// is written with it; dump --json's records use the same escaping directly, for speed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

namespace tools {

class JsonWriter {
 public:
  explicit JsonWriter(fmt::memory_buffer* out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // The key of the next value in the object being written.
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view v);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Int(int64_t v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();

  // Members of the object being written, already rendered, each preceded by a comma
  // (`,"key":value,"key":value`): the first comma is dropped when they come first. Only
  // directly inside an open object, not after a Key.
  JsonWriter& Members(std::string_view members);

  // Key and value at once.
  template <typename T>
  JsonWriter& Field(std::string_view key, const T& v) {
    Key(key);
    return Value(v);
  }

 private:
  JsonWriter& Value(std::string_view v) { return String(v); }
  JsonWriter& Value(const std::string& v) { return String(v); }
  JsonWriter& Value(const char* v) { return String(v); }
  JsonWriter& Value(bool v) { return Bool(v); }
  template <typename T>
  JsonWriter& Value(const T& v) {
    static_assert(std::is_integral_v<T>, "JsonWriter::Field takes strings, bools and integers");
    if constexpr (std::is_signed_v<T>) {
      return Int(static_cast<int64_t>(v));
    } else {
      return Uint(static_cast<uint64_t>(v));
    }
  }
  // Before a value or a key: the comma that separates it from the one before.
  void Separate();

  fmt::memory_buffer* out_;
  std::vector<bool> first_;  // per open object or array: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace tools
