#include "libwal/binary_meta.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "libwal/binary_text.h"
#include "libwal/coding.h"

namespace wal {
namespace {

namespace fs = std::filesystem;

// Ignite's binary type codes met in a .bin file: those of binary_text.h.
using binary::kCollection;
using binary::kInt;
using binary::kMap;
using binary::kNull;
using binary::kObject;
using binary::kOptimized;
using binary::kString;
constexpr uint8_t kExternalizable = 101;  // OptimizedMarshaller's code for an Externalizable object
constexpr size_t kObjectHeader = binary::kHeader;
constexpr size_t kOptimizedHeader = 7;     // 0x65 · i32 class id · i16
constexpr size_t kMaxFileSize = 16 << 20;  // a type's metadata takes a few KiB

// Reads the typed values of a binary object's field area, in order.
class Cursor {
 public:
  explicit Cursor(std::string_view b) : b_(b) {}
  size_t left() const { return b_.size() - at_; }

  bool Code(uint8_t* c) {
    if (left() < 1) return false;
    *c = static_cast<uint8_t>(b_[at_++]);
    return true;
  }
  bool I32(int32_t* v) {
    if (left() < 4) return false;
    *v = static_cast<int32_t>(DecodeFixed32(b_.data() + at_));
    at_ += 4;
    return true;
  }
  bool Bytes(int32_t n, std::string_view* out) {
    if (n < 0 || static_cast<size_t>(n) > left()) return false;
    *out = b_.substr(at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return true;
  }
  // A String (or null: empty).
  bool String(std::string* out) {
    uint8_t c = 0;
    if (!Code(&c)) return false;
    if (c == kNull) return true;
    int32_t n = 0;
    std::string_view s;
    if (c != kString || !I32(&n) || !Bytes(n, &s)) return false;
    out->assign(s);
    return true;
  }
  // An Externalizable object written by the OptimizedMarshaller: its data.
  bool Externalizable(std::string_view* data) {
    uint8_t c = 0;
    int32_t n = 0;
    std::string_view blob;
    if (!Code(&c) || c != kOptimized || !I32(&n) || !Bytes(n, &blob)) return false;
    if (blob.size() < kOptimizedHeader || static_cast<uint8_t>(blob[0]) != kExternalizable) return false;
    *data = blob.substr(kOptimizedHeader);
    return true;
  }
  // The header of a Map or a Collection (or null: size 0); the size is checked against
  // what is left (every element takes a byte at least).
  bool Container(uint8_t code, int32_t* size) {
    uint8_t c = 0;
    if (!Code(&c)) return false;
    if (c == kNull) {
      *size = 0;
      return true;
    }
    uint8_t kind = 0;
    return c == code && I32(size) && *size >= 0 && static_cast<size_t>(*size) <= left() && Code(&kind);
  }

 private:
  std::string_view b_;
  size_t at_ = 0;
};

Status Bad(std::string_view what) { return Status::Corruption(fmt::format("not Ignite binary metadata: {}", what)); }

}  // namespace

Status BinaryTypes::Parse(std::string_view b, int32_t* type_id, BinaryType* out) {
  if (b.size() < kObjectHeader || static_cast<uint8_t>(b[0]) != kObject) return Bad("no binary object header");
  const uint16_t flags = DecodeFixed16(b.data() + 2);
  const uint32_t length = DecodeFixed32(b.data() + 12);
  if (length > b.size() || length < kObjectHeader) return Bad("object length past the end");
  const bool has_schema = (flags & 0x0002) != 0;
  const bool has_raw = (flags & 0x0004) != 0;
  if (has_raw && length < kObjectHeader + 4) return Bad("object length past the end");
  // Offset 20 holds where the schema begins, or without one where raw data begins; with
  // both, the raw data's offset is the object's last four bytes.
  const uint32_t fields_end = has_raw && has_schema   ? DecodeFixed32(b.data() + length - 4)
                              : has_raw || has_schema ? DecodeFixed32(b.data() + 20)
                                                      : length;
  if (fields_end > length || fields_end < kObjectHeader) return Bad("field area past the object");
  Cursor c(b.substr(kObjectHeader, fields_end - kObjectHeader));
  uint8_t code = 0;
  if (!c.Code(&code) || code != kInt || !c.I32(type_id)) return Bad("no type id");
  BinaryType t;
  if (!c.String(&t.name)) return Bad("no type name");
  int32_t fields = 0;
  if (!c.Container(kMap, &fields)) return Bad("no field map");
  for (int32_t i = 0; i < fields; ++i) {
    std::string name;
    std::string_view meta;
    if (!c.String(&name) || !c.Externalizable(&meta) || meta.size() < 8) return Bad("a field's metadata cut short");
    t.field_names[static_cast<int32_t>(DecodeFixed32(meta.data() + 4))] = std::move(name);
  }
  std::string affinity_key;
  if (!c.String(&affinity_key)) return Bad("no affinity key field");
  int32_t schemas = 0;
  if (!c.Container(kCollection, &schemas)) return Bad("no schema collection");
  for (int32_t i = 0; i < schemas; ++i) {
    std::string_view s;
    if (!c.Externalizable(&s) || s.size() < 8) return Bad("a schema cut short");
    const auto id = static_cast<int32_t>(DecodeFixed32(s.data()));
    const auto count = static_cast<int32_t>(DecodeFixed32(s.data() + 4));
    if (count < 0 || s.size() - 8 != 4 * static_cast<size_t>(count)) {
      return Bad("a schema's field count disagrees with its length");
    }
    std::vector<int32_t> ids(static_cast<size_t>(count));
    for (int32_t k = 0; k < count; ++k)
      ids[static_cast<size_t>(k)] = static_cast<int32_t>(DecodeFixed32(s.data() + 8 + 4 * static_cast<size_t>(k)));
    t.schemas[id] = std::move(ids);
  }
  *out = std::move(t);
  return Status::Ok();
}

void BinaryTypes::LoadDir(const std::string& dir, std::vector<std::string>* problems) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".bin") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string stem = path.stem().string();
    int32_t named = 0;
    const auto [end, err] = std::from_chars(stem.data(), stem.data() + stem.size(), named);
    if (err != std::errc() || end != stem.data() + stem.size()) continue;  // not <type id>.bin
    // At most one byte more than any metadata, whatever the file grows to meanwhile.
    std::ifstream in(path, std::ios::binary);
    std::string bytes;
    char chunk[1 << 16];
    while (in.is_open() && bytes.size() <= kMaxFileSize) {
      in.read(chunk, sizeof chunk);
      if (in.gcount() <= 0) break;
      bytes.append(chunk, static_cast<size_t>(in.gcount()));
    }
    if (!in.is_open() || in.bad()) {
      problems->push_back(fmt::format("\"{}\": cannot be read", path.string()));
      continue;
    }
    if (bytes.size() > kMaxFileSize) {
      problems->push_back(fmt::format("\"{}\": larger than any binary metadata", path.string()));
      continue;
    }
    int32_t id = 0;
    BinaryType t;
    if (Status s = Parse(bytes, &id, &t); !s.ok()) {
      problems->push_back(fmt::format("\"{}\": {}", path.string(), s.message()));
    } else if (id != named) {
      problems->push_back(fmt::format("\"{}\": holds type {}, not the type its name says", path.string(), id));
    } else {
      Add(id, std::move(t));
    }
  }
}

const BinaryType* BinaryTypes::Find(int32_t type_id) const {
  auto it = types_.find(type_id);
  return it != types_.end() ? &it->second : nullptr;
}

}  // namespace wal
