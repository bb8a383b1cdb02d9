#include "libcut/json_doc.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace cut {
namespace {

// The deepest nesting of arrays and objects in `text`, outside strings; stops counting
// past `limit`.
int NestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

wal::Result<nlohmann::json> ParseJson(std::string_view text, const std::string& path) {
  if (NestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return wal::Status::Corruption(fmt::format("\"{}\": JSON nested deeper than {} levels", path, kMaxJsonDepth));
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return wal::Status::Corruption(fmt::format("\"{}\": not valid JSON", path));
  if (!j.is_object()) return wal::Status::Corruption(fmt::format("\"{}\": not a JSON object", path));
  return j;
}

namespace {

std::string SealOf(const nlohmann::json& doc) {
  const std::string canonical = doc.dump();
  return fmt::format("0x{:016x}", XXH3_64bits(canonical.data(), canonical.size()));
}

}  // namespace

std::string SealJson(nlohmann::ordered_json doc) {
  doc.erase("checksum");
  doc["checksum"] = SealOf(nlohmann::json(doc));
  return doc.dump(2) + "\n";
}

wal::Status CheckJsonSeal(nlohmann::json* doc, const std::string& path) {
  auto it = doc->find("checksum");
  if (it == doc->end() || !it->is_string()) {
    return wal::Status::Corruption(fmt::format("\"{}\": no checksum (written by an earlier walcut, or edited)", path));
  }
  const std::string stored = it->get<std::string>();
  doc->erase(it);
  const std::string actual = SealOf(*doc);
  if (stored != actual) {
    return wal::Status::Corruption(
        fmt::format("\"{}\": checksum mismatch: the file records {}, its content has {}", path, stored, actual));
  }
  return wal::Status::Ok();
}

namespace {

const nlohmann::json& NullJson() {
  static const nlohmann::json null;
  return null;
}

const nlohmann::json& EmptyObject() {
  static const nlohmann::json object = nlohmann::json::object();
  return object;
}

const nlohmann::json& EmptyArray() {
  static const nlohmann::json array = nlohmann::json::array();
  return array;
}

}  // namespace

JsonObject::JsonObject(const nlohmann::json& j, std::string where, JsonErrors* errors)
    : j_(j.is_object() ? j : EmptyObject()), where_(std::move(where)), errors_(errors) {
  if (!j.is_object()) Fail(fmt::format("{}: not an object", where_.empty() ? "document" : where_));
}

std::string JsonObject::Where(const char* key) const { return where_.empty() ? key : where_ + "." + key; }

bool JsonObject::Has(const char* key) const { return j_.contains(key); }

const nlohmann::json& JsonObject::At(const char* key) const {
  auto it = j_.find(key);
  if (it == j_.end()) {
    Fail(fmt::format("{}: missing", Where(key)));
    return NullJson();
  }
  return *it;
}

uint64_t JsonUint(const nlohmann::json& j, const std::string& where, uint64_t max, JsonErrors* errors) {
  if (!j.is_number_unsigned()) {
    errors->Fail(fmt::format("{}: expected a non-negative integer, found {}", where, j.type_name()));
    return 0;
  }
  const uint64_t v = j.get<uint64_t>();
  if (v > max) {
    errors->Fail(fmt::format("{}: {} is larger than {}", where, v, max));
    return 0;
  }
  return v;
}

std::string JsonString(const nlohmann::json& j, const std::string& where, JsonErrors* errors, size_t max_size) {
  if (!j.is_string()) {
    errors->Fail(fmt::format("{}: expected a string, found {}", where, j.type_name()));
    return {};
  }
  const auto& s = j.get_ref<const std::string&>();
  if (s.size() > max_size) {
    errors->Fail(fmt::format("{}: a string of {} bytes, more than {}", where, s.size(), max_size));
    return {};
  }
  return s;
}

uint64_t JsonObject::Uint(const char* key, uint64_t max) const { return JsonUint(At(key), Where(key), max, errors_); }

int64_t JsonObject::Int(const char* key) const {
  const auto& v = At(key);
  if (!v.is_number_integer()) {
    Fail(fmt::format("{}: expected an integer, found {}", Where(key), v.type_name()));
    return 0;
  }
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    Fail(fmt::format("{}: out of range", Where(key)));
    return 0;
  }
  return v.get<int64_t>();
}

bool JsonObject::Bool(const char* key) const {
  const auto& v = At(key);
  if (!v.is_boolean()) {
    Fail(fmt::format("{}: expected true or false, found {}", Where(key), v.type_name()));
    return false;
  }
  return v.get<bool>();
}

std::string JsonObject::String(const char* key, size_t max_size) const {
  return JsonString(At(key), Where(key), errors_, max_size);
}

wal::Uuid JsonObject::Uuid(const char* key) const {
  const std::string text = String(key, 64);
  auto u = wal::Uuid::Parse(text);
  if (!u) {
    Fail(fmt::format("{}: not a UUID", Where(key)));
    return {};
  }
  return *u;
}

wal::Pointer JsonObject::Pointer(const char* key) const {
  auto p = wal::Pointer::Parse(String(key, 64));
  if (!p) {
    Fail(fmt::format("{}: not a pointer SEG:OFF", Where(key)));
    return {};
  }
  return *p;
}

wal::TxId JsonObject::TxId(const char* key) const {
  auto t = wal::TxId::Parse(String(key, 64));
  if (!t) {
    Fail(fmt::format("{}: not a transaction id T.N.O", Where(key)));
    return {};
  }
  return *t;
}

const nlohmann::json& JsonObject::Array(const char* key, size_t max_size) const {
  const auto& v = At(key);
  if (!v.is_array()) {
    Fail(fmt::format("{}: expected an array, found {}", Where(key), v.type_name()));
    return EmptyArray();
  }
  if (v.size() > max_size) {
    Fail(fmt::format("{}: {} elements, more than {}", Where(key), v.size(), max_size));
    return EmptyArray();
  }
  return v;
}

JsonObject JsonObject::Object(const char* key) const { return JsonObject(At(key), Where(key), errors_); }

bool IsSafeName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (char c : name) {
    if (c == '/' || c == '\0') return false;
  }
  return true;
}

}  // namespace cut
