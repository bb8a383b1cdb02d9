#include "libwal/java_stream.h"

#include <fmt/format.h>

namespace wal::java {

bool JavaStream::ReadClassDesc(int* out, int depth) {
  if (depth > kMaxDepth) return Fail("nested too deep");
  uint64_t tag = 0;
  if (!Bytes(1, &tag)) return false;
  if (tag == kTcNull) {
    *out = -1;
    return true;
  }
  if (tag == kTcReference) {
    Value::Kind kind = Value::kNull;
    if (!Handle(&kind, out)) return false;
    return kind == Value::kPrimitive || Fail("reference to a class is not to a class");
  }
  if (tag == kTcProxyClassDesc) {
    const int index = static_cast<int>(classes_.size());
    classes_.emplace_back();
    uint64_t count = 0;
    if (!NewHandle(Value::kPrimitive, index) || !Bytes(4, &count)) return false;
    if (count > b_.size() - pos_) return Fail("too many proxy interfaces");
    ClassDesc c;
    c.name = "<proxy>";
    for (uint64_t i = 0; i < count; ++i) {
      std::string iface;
      if (!Utf(2, &iface)) return false;
    }
    if (!SkipToEndBlock(depth) || !ReadClassDesc(&c.super, depth + 1)) return false;
    classes_[static_cast<size_t>(index)] = std::move(c);
    *out = index;
    return true;
  }
  if (tag != kTcClassDesc) return Fail(fmt::format("unexpected tag 0x{:02x} for a class", tag));
  ClassDesc c;
  uint64_t suid = 0, flags = 0, count = 0;
  if (!Utf(2, &c.name) || !Bytes(8, &suid)) return false;
  const int index = static_cast<int>(classes_.size());
  classes_.emplace_back();
  if (!NewHandle(Value::kPrimitive, index) || !Bytes(1, &flags) || !Bytes(2, &count)) return false;
  c.flags = static_cast<uint8_t>(flags);
  if ((c.flags & kScExternalizable) && !(c.flags & kScBlockData)) {
    return Fail(fmt::format("class {} is externalizable, written without block data", c.name));
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t type = 0;
    ClassDesc::Field f;
    if (!Bytes(1, &type) || !Utf(2, &f.name)) return false;
    f.type = static_cast<char>(type);
    if (std::string_view("BCDFIJSZ").find(f.type) == std::string_view::npos) {
      if (f.type != 'L' && f.type != '[') return Fail(fmt::format("field type '{}'", static_cast<char>(type)));
      Value name;
      if (!ReadValue(&name, depth + 1)) return false;
      if (name.kind != Value::kString) return Fail("a field's class name is no string");
    }
    c.fields.push_back(std::move(f));
  }
  if (!SkipToEndBlock(depth) || !ReadClassDesc(&c.super, depth + 1)) return false;
  classes_[static_cast<size_t>(index)] = std::move(c);
  *out = index;
  return true;
}

bool JavaStream::SkipToEndBlock(int depth, std::vector<Value>* values, std::string* block) {
  for (;;) {
    if (pos_ >= b_.size()) return Fail("cut short");
    const auto tag = static_cast<uint8_t>(b_[pos_]);
    if (tag == kTcEndBlockData) {
      ++pos_;
      return true;
    }
    if (tag == kTcBlockData || tag == kTcBlockDataLong) {
      ++pos_;
      uint64_t n = 0;
      if (!Bytes(tag == kTcBlockData ? 1 : 4, &n)) return false;
      if (b_.size() - pos_ < n) return Fail("block cut short");
      if (block != nullptr) block->append(b_.substr(pos_, n));
      pos_ += n;
      continue;
    }
    Value v;
    if (!ReadValue(&v, depth + 1)) return false;
    if (values != nullptr && values->size() < kMaxHandles) values->push_back(std::move(v));
  }
}

bool JavaStream::ReadClassData(int cls, int object, int depth) {
  std::vector<int> chain;                                              // the class, then its superclasses
  if (classes_[static_cast<size_t>(cls)].flags & kScExternalizable) {  // its writeExternal's data alone
    std::vector<Value> written;
    std::string block;
    if (!SkipToEndBlock(depth, &written, &block)) return false;
    Object& o = objects_[static_cast<size_t>(object)];
    o.written = std::move(written);
    o.block = std::move(block);
    return true;
  }
  for (int c = cls; c >= 0; c = classes_[static_cast<size_t>(c)].super) {
    if (chain.size() > kMaxDepth) return Fail("class hierarchy too deep");
    chain.push_back(c);
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const ClassDesc c = classes_[static_cast<size_t>(*it)];  // a copy: reading its fields adds classes
    for (const auto& f : c.fields) {
      Value v;
      static constexpr std::string_view kTypes = "BCDFIJSZ";
      static constexpr uint8_t kSizes[] = {1, 2, 8, 4, 4, 8, 2, 1};
      const size_t t = kTypes.find(f.type);
      if (t != std::string_view::npos) {
        v.kind = Value::kPrimitive;
        if (!Bytes(kSizes[t], &v.bits)) return false;
      } else if (!ReadValue(&v, depth + 1)) {
        return false;
      }
      objects_[static_cast<size_t>(object)].fields.emplace_back(f.name, std::move(v));
    }
    std::vector<Value> written;
    std::string block;
    if ((c.flags & kScWriteMethod) && !SkipToEndBlock(depth, &written, &block)) return false;
    auto& into = objects_[static_cast<size_t>(object)].written;
    into.insert(into.end(), std::make_move_iterator(written.begin()), std::make_move_iterator(written.end()));
    objects_[static_cast<size_t>(object)].block += block;
  }
  return true;
}

bool JavaStream::ReadValue(Value* out, int depth) {
  if (depth > kMaxDepth) return Fail("nested too deep");
  uint64_t tag = 0;
  if (!Bytes(1, &tag)) return false;
  switch (tag) {
    case kTcNull: out->kind = Value::kNull; return true;
    case kTcString:
    case kTcLongString: return ReadString(static_cast<uint8_t>(tag), out);
    case kTcReference: {
      Value::Kind kind = Value::kNull;
      int index = 0;
      if (!Handle(&kind, &index)) return false;
      if (index < 0) return Fail("reference to an object not yet read");
      if (kind == Value::kString || kind == Value::kEnum) {
        out->kind = kind;
        out->text = strings_[static_cast<size_t>(index)];
      } else if (kind == Value::kObject || kind == Value::kArray) {
        out->kind = kind;
        out->object = index;
      } else if (kind == Value::kClass) {
        out->kind = Value::kClass;
        out->text = classes_[static_cast<size_t>(index)].name;
      } else {
        return Fail("reference to a class descriptor where a value belongs");
      }
      return true;
    }
    case kTcArray: return ReadArray(out, depth);
    case kTcEnum: return ReadEnum(out, depth);
    case kTcClass: {
      int cls = -1;
      if (!ReadClassDesc(&cls, depth + 1)) return false;
      if (cls < 0) return Fail("class of no descriptor");
      out->kind = Value::kClass;
      out->text = classes_[static_cast<size_t>(cls)].name;
      return NewHandle(Value::kClass, cls);
    }
    case kTcObject: {
      int cls = -1;
      if (!ReadClassDesc(&cls, depth + 1)) return false;
      if (cls < 0) return Fail("object of no class");
      const int index = static_cast<int>(objects_.size());
      objects_.push_back({cls, {}, {}, {}});
      if (!NewHandle(Value::kObject, index) || !ReadClassData(cls, index, depth)) return false;
      out->kind = Value::kObject;
      out->object = index;
      return true;
    }
    default: return Fail(fmt::format("unexpected tag 0x{:02x}", tag));
  }
}

bool JavaStream::ReadArray(Value* out, int depth) {
  int cls = -1;
  if (!ReadClassDesc(&cls, depth + 1)) return false;
  if (cls < 0) return Fail("array of no class");
  const std::string name = classes_[static_cast<size_t>(cls)].name;
  if (name.size() < 2 || name[0] != '[') return Fail(fmt::format("array of class {}", name));
  const int index = static_cast<int>(objects_.size());
  objects_.push_back({cls, {}, {}, {}});
  uint64_t count = 0;
  if (!NewHandle(Value::kArray, index) || !Bytes(4, &count)) return false;
  static constexpr std::string_view kTypes = "BCDFIJSZ";
  static constexpr uint8_t kSizes[] = {1, 2, 8, 4, 4, 8, 2, 1};
  const size_t t = kTypes.find(name[1]);
  out->kind = Value::kArray;
  out->object = index;
  if (t != std::string_view::npos) {
    if (count > (b_.size() - pos_) / kSizes[t]) return Fail("array cut short");
    objects_[static_cast<size_t>(index)].block.assign(b_.substr(pos_, count * kSizes[t]));
    pos_ += count * kSizes[t];
    return true;
  }
  if (count > b_.size() - pos_) return Fail("array cut short");
  for (uint64_t i = 0; i < count; ++i) {
    Value v;
    if (!ReadValue(&v, depth + 1)) return false;
    auto& written = objects_[static_cast<size_t>(index)].written;
    if (written.size() < kMaxHandles) written.push_back(std::move(v));
  }
  return true;
}

bool JavaStream::ReadEnum(Value* out, int depth) {
  int cls = -1;
  if (!ReadClassDesc(&cls, depth + 1)) return false;
  if (cls < 0) return Fail("enum constant of no class");
  const size_t slot = handles_.size();
  if (!NewHandle(Value::kEnum, -1)) return false;
  Value name;
  if (!ReadValue(&name, depth + 1)) return false;
  if (name.kind != Value::kString) return Fail("an enum constant's name is no string");
  strings_.push_back(name.text);
  handles_[slot].second = static_cast<int>(strings_.size() - 1);
  out->kind = Value::kEnum;
  out->text = std::move(name.text);
  return true;
}

const Value* FieldOf(const Object& o, std::string_view name) {
  for (const auto& [n, v] : o.fields) {
    if (n == name) return &v;
  }
  return nullptr;
}

}  // namespace wal::java
