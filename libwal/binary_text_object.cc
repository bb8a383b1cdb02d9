#include "libwal/binary_text.h"

#include <string>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/coding.h"
#include "libwal/printable.h"

namespace wal {

using namespace binary;

namespace {

constexpr uint16_t kHasSchema = 0x0002, kHasRaw = 0x0004, kOffsetOneByte = 0x0008, kOffsetTwoBytes = 0x0010,
                   kCompactFooter = 0x0020;

// Where an object's parts lie, as offsets from its start: header (and, for type id 0,
// the class name) | fields | raw data | footer | with both a footer and raw data, the raw
// data's offset. Header offset 20 holds the footer's offset, or without one the raw
// data's. The footer is the field offsets (1, 2 or 4 bytes by the flags), each after its
// field id (i32) unless the footer is compact.
struct ObjectLayout {
  size_t data_start = kHeader;
  size_t fields_end = 0;
  size_t raw_end = 0;
  size_t footer_start = 0;
  size_t footer_end = 0;
  size_t id_size = 0;
  size_t offset_size = 0;
  std::string_view class_name;

  bool Read(std::string_view o, uint16_t flags, int32_t type_id) {
    const size_t len = o.size();
    if (type_id == 0) {
      if (len < kHeader + 5 || static_cast<uint8_t>(o[kHeader]) != kString) return false;
      const uint32_t n = DecodeFixed32(o.data() + kHeader + 1);
      if (n > len - kHeader - 5) return false;
      class_name = o.substr(kHeader + 5, n);
      data_start = kHeader + 5 + n;
    }
    const bool raw = (flags & kHasRaw) != 0;
    const uint32_t at20 = DecodeFixed32(o.data() + 20);
    if ((flags & kHasSchema) != 0) {
      if (raw && len < data_start + 4) return false;
      footer_end = raw ? len - 4 : len;
      if (at20 < data_start || at20 > footer_end) return false;
      footer_start = raw_end = at20;
      fields_end = raw ? DecodeFixed32(o.data() + len - 4) : at20;
      id_size = (flags & kCompactFooter) != 0 ? 0 : 4;
      offset_size = (flags & kOffsetOneByte) != 0 ? 1 : (flags & kOffsetTwoBytes) != 0 ? 2 : 4;
      if ((footer_end - footer_start) % (id_size + offset_size) != 0) return false;
    } else {
      footer_start = footer_end = raw_end = len;
      fields_end = raw ? at20 : len;
    }
    return fields_end >= data_start && fields_end <= raw_end;
  }
  size_t Fields() const { return offset_size == 0 ? 0 : (footer_end - footer_start) / (id_size + offset_size); }
  size_t Offset(std::string_view o, size_t i) const {
    const char* p = o.data() + footer_start + i * (id_size + offset_size) + id_size;
    if (offset_size == 1) return static_cast<uint8_t>(*p);
    if (offset_size == 2) return DecodeFixed16(p);
    return DecodeFixed32(p);
  }
  int32_t Id(std::string_view o, size_t i) const {
    return static_cast<int32_t>(DecodeFixed32(o.data() + footer_start + i * (id_size + offset_size)));
  }
};

}  // namespace

bool BinaryText::Object(std::string_view buf, size_t start, size_t end, std::string* out, size_t* length) {
  if (end > buf.size() || start > end || end - start < kHeader || static_cast<uint8_t>(buf[start]) != kObject) {
    return false;
  }
  const uint32_t len = DecodeFixed32(buf.data() + start + 12);
  if (len < kHeader || len > end - start) return false;
  *length = len;
  const std::string_view o = buf.substr(start, len);
  const uint16_t flags = DecodeFixed16(o.data() + 2);
  const auto type_id = static_cast<int32_t>(DecodeFixed32(o.data() + 4));
  ObjectLayout l;
  const bool good = l.Read(o, flags, type_id);
  *out += "binary(";
  if (l.class_name.empty()) {
    AppendTypeId(out, type_id);
  } else {
    *out += "0 ";
    *out += Printable(l.class_name, kMaxClassName);
  }
  out->push_back(')');
  if (!good) {
    *out += "0x";
    *out += Hex(o);
    return true;
  }
  // Fields lie at strictly increasing offsets within [data start, fields end): each
  // ends where the next begins, the last at the fields' end. A footer that says
  // otherwise is not used: the fields are then read one after another, unnamed.
  size_t n = l.Fields();
  bool ordered = true;
  for (size_t i = 0, prev = 0; ordered && i < n; ++i) {
    const size_t off = l.Offset(o, i);
    ordered = off >= l.data_start && off < l.fields_end && (i == 0 || off > prev);
    prev = off;
  }
  if (!ordered) n = 0;
  open_.push_back(o.data());
  // Names: by the field ids of a full footer, or of the schema the metadata holds under
  // the object's schema id; all of them or none.
  const BinaryType* type = types_ != nullptr ? types_->Find(type_id) : nullptr;
  const std::vector<int32_t>* schema = nullptr;
  bool named = type != nullptr && n > 0;
  if (named && l.id_size == 0) {
    auto it = type->schemas.find(static_cast<int32_t>(DecodeFixed32(o.data() + 16)));
    named = it != type->schemas.end() && it->second.size() == n;
    if (named) schema = &it->second;
  }
  auto name = [&](size_t i) -> const std::string* {
    auto it = type->field_names.find(schema != nullptr ? (*schema)[i] : l.Id(o, i));
    return it == type->field_names.end() ? nullptr : &it->second;
  };
  for (size_t i = 0; named && i < n; ++i) named = name(i) != nullptr;
  out->push_back('{');
  if (ordered && (flags & kHasSchema) != 0) {
    for (size_t i = 0; i < n; ++i) {
      if (i != 0) out->push_back(',');
      if (named) {
        *out += *name(i);
        out->push_back('=');
      }
      const size_t from = l.Offset(o, i);
      const size_t to = i + 1 < n ? l.Offset(o, i + 1) : l.fields_end;
      size_t at = start + from;
      const size_t mark = out->size();
      if (!Value(buf, &at, start + to, false, out) || at != start + to) {
        out->resize(mark);
        *out += "0x";
        *out += Hex(o.substr(from, to - from));
      }
    }
  } else {
    // No footer (Ignite writes none for an object without fields) or none to trust:
    // what lies before the raw data read value by value, what cannot be read in hex.
    size_t at = start + l.data_start;
    for (bool first = true; at < start + l.fields_end; first = false) {
      if (!first) out->push_back(',');
      if (!Value(buf, &at, start + l.fields_end, false, out)) {
        *out += "0x";
        *out += Hex(buf.substr(at, start + l.fields_end - at));
        break;
      }
    }
  }
  out->push_back('}');
  if ((flags & kHasRaw) != 0) {
    *out += "+raw(0x";
    *out += Hex(o.substr(l.fields_end, l.raw_end - l.fields_end));
    out->push_back(')');
  }
  open_.pop_back();
  return true;
}

}  // namespace wal
