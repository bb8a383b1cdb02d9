// Reading the JSON side files of a cluster directory (cluster.json, snapshot.json,
// restore.json, summaries) with limits: a file too large or nested too deep is refused
// before the parser sees it, and every field is taken through a checked accessor that
// names the file and the field when it is missing, of the wrong type or out of range.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "libwal/ids.h"
#include "libwal/status.h"

namespace cut {

inline constexpr uint64_t kMaxSideFileBytes = 64ull << 20;
inline constexpr int kMaxJsonDepth = 32;

// `path` is only for messages.
wal::Result<nlohmann::json> ParseJson(std::string_view text, const std::string& path);

// A side file that carries a checksum of its own: "checksum", the last key, is
// "0x" and the 16 hex digits of the XXH3-64 of the document without it, dumped compact
// with its keys sorted (nlohmann::json's dump()). SealJson returns the file's text
// (2-space indented, the keys in the order given, a newline at the end); CheckJsonSeal
// verifies and removes the key, kCorruption naming `path` when it is absent or wrong.
std::string SealJson(nlohmann::ordered_json doc);
wal::Status CheckJsonSeal(nlohmann::json* doc, const std::string& path);

// What is wrong with a document, as its reader goes: the first fault found, by the
// accessors below or by the reader's own checks. Later ones are not kept, and the reader
// asks ok() when it is done (or sooner, where going on would mean nothing).
class JsonErrors {
 public:
  void Fail(std::string message) {
    if (ok_) first_ = std::move(message);
    ok_ = false;
  }
  bool ok() const { return ok_; }
  const std::string& first() const { return first_; }

 private:
  bool ok_ = true;
  std::string first_;
};

// Checked access to one JSON object; `where` names it in messages ("nodes[2]"). A field
// missing, of the wrong type or out of range goes to `errors`, and its accessor returns
// zero, false, an empty string, array or object, or a null value (At): nothing a reader
// could mistake for content, since the document is refused.
class JsonObject {
 public:
  JsonObject(const nlohmann::json& j, std::string where, JsonErrors* errors);

  bool Has(const char* key) const;
  const nlohmann::json& At(const char* key) const;  // present
  std::string Where(const char* key) const;
  JsonErrors* errors() const { return errors_; }
  void Fail(std::string message) const { errors_->Fail(std::move(message)); }

  uint64_t Uint(const char* key, uint64_t max = std::numeric_limits<uint64_t>::max()) const;
  int64_t Int(const char* key) const;
  bool Bool(const char* key) const;
  std::string String(const char* key, size_t max_size = 4096) const;
  wal::Uuid Uuid(const char* key) const;
  wal::Pointer Pointer(const char* key) const;
  wal::TxId TxId(const char* key) const;
  const nlohmann::json& Array(const char* key, size_t max_size = std::numeric_limits<size_t>::max()) const;
  JsonObject Object(const char* key) const;
  // An element of one of this object's arrays, as an object named `where`.
  JsonObject Element(const nlohmann::json& j, std::string where) const { return {j, std::move(where), errors_}; }

  const nlohmann::json& json() const { return j_; }

 private:
  const nlohmann::json& j_;
  std::string where_;
  JsonErrors* errors_;
};

// The same checks on a value that is not a member (an array element).
uint64_t JsonUint(const nlohmann::json& j, const std::string& where, uint64_t max, JsonErrors* errors);
std::string JsonString(const nlohmann::json& j, const std::string& where, JsonErrors* errors, size_t max_size = 4096);

// A node or snapshot name used as a file name: one path component, 1 to 255 bytes, no
// '/', no NUL, not "." or "..".
bool IsSafeName(std::string_view name);

}  // namespace cut
