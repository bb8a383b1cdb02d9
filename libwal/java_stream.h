// Reading a Java serialization stream (the Java Object Serialization Stream Protocol,
// as ObjectOutputStream writes it) without a JVM: objects, class descriptors (proxy
// classes too), strings, arrays, enum constants, classes, references and primitive
// fields, what a writeObject method wrote after its fields (a set's elements, and the
// raw bytes of its block data) and an externalizable object's block data. Nothing is
// instantiated; depth and object count are bounded, so any bytes are read in time and
// memory proportional to their size. Enough for the metadata Apache Ignite keeps beside
// its snapshots (ignite_increment_meta.h) and its caches' stored configurations
// (ignite_snapshot.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace wal::java {

// The protocol's tags and class flags that are read here.
constexpr uint8_t kTcNull = 0x70;
constexpr uint8_t kTcReference = 0x71;
constexpr uint8_t kTcClassDesc = 0x72;
constexpr uint8_t kTcObject = 0x73;
constexpr uint8_t kTcString = 0x74;
constexpr uint8_t kTcArray = 0x75;
constexpr uint8_t kTcClass = 0x76;
constexpr uint8_t kTcBlockData = 0x77;
constexpr uint8_t kTcEndBlockData = 0x78;
constexpr uint8_t kTcBlockDataLong = 0x7A;
constexpr uint8_t kTcLongString = 0x7C;
constexpr uint8_t kTcProxyClassDesc = 0x7D;
constexpr uint8_t kTcEnum = 0x7E;
constexpr uint32_t kBaseHandle = 0x7E0000;
constexpr uint8_t kScWriteMethod = 0x01;
constexpr uint8_t kScExternalizable = 0x04;
constexpr uint8_t kScBlockData = 0x08;

constexpr int kMaxDepth = 16;
constexpr size_t kMaxHandles = 4096;

// A class descriptor: its name, flags and fields (type code and name).
struct ClassDesc {
  struct Field {
    char type;
    std::string name;
  };
  std::string name;
  uint8_t flags = 0;
  std::vector<Field> fields;
  int super = -1;  // index into classes, -1 for none
};

// A field's value, or an element a writeObject method wrote.
struct Value {
  // kArray: an Object whose `written` holds the elements of an array of objects, or
  // whose `block` holds the bytes of an array of primitives (big-endian, as written).
  // kEnum: the constant's name in `text`; kClass: the class's name in `text`.
  enum Kind { kNull, kPrimitive, kString, kObject, kArray, kEnum, kClass } kind = kNull;
  uint64_t bits = 0;  // a primitive, big-endian as read
  std::string text;   // a string (modified UTF-8, as written)
  int object = -1;    // index into objects
};

// An object read: its class and every field's value.
struct Object {
  int cls = -1;
  std::vector<std::pair<std::string, Value>> fields;  // of every class, topmost first
  std::vector<Value> written;                         // what a writeObject method wrote after them (a set's elements)
  std::string block;  // the bytes of its block data (writeObject's, or an externalizable's)
};

// One stream: Magic(), then ReadValue() for its first object; what was read stays
// reachable through object() and cls() by index. On false, error() says what and where.
class JavaStream {
 public:
  explicit JavaStream(std::string_view bytes) : b_(bytes) {}

  bool ReadValue(Value* out, int depth);
  bool Magic() {
    uint64_t m = 0;
    return Bytes(4, &m) && (m == 0xACED0005 || Fail("not a Java serialization stream"));
  }
  bool AtEnd() const { return pos_ == b_.size(); }
  const Object& object(int i) const { return objects_[static_cast<size_t>(i)]; }
  const ClassDesc& cls(int i) const { return classes_[static_cast<size_t>(i)]; }
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }

 private:
  bool Fail(std::string_view what) {
    if (error_.empty()) error_ = fmt::format("offset {}: {}", pos_, what);
    return false;
  }
  bool Bytes(size_t n, uint64_t* out) {  // n <= 8, big-endian
    if (b_.size() - pos_ < n) return Fail("cut short");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(b_[pos_ + i]);
    pos_ += n;
    *out = v;
    return true;
  }
  bool Utf(uint64_t len_bytes, std::string* out) {
    uint64_t n = 0;
    if (!Bytes(len_bytes, &n)) return false;
    if (b_.size() - pos_ < n) return Fail("string cut short");
    out->assign(b_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  bool NewHandle(Value::Kind kind, int index) {
    if (handles_.size() >= kMaxHandles) return Fail("too many objects");
    handles_.push_back({kind, index});
    return true;
  }
  bool Handle(Value::Kind* kind, int* index) {
    uint64_t h = 0;
    if (!Bytes(4, &h)) return false;
    if (h < kBaseHandle || h - kBaseHandle >= handles_.size()) return Fail("reference to no earlier object");
    *kind = handles_[h - kBaseHandle].first;
    *index = handles_[h - kBaseHandle].second;
    return true;
  }
  bool ReadString(uint8_t tag, Value* out) {
    out->kind = Value::kString;
    if (!Utf(tag == kTcString ? 2 : 8, &out->text)) return false;
    strings_.push_back(out->text);
    return NewHandle(Value::kString, static_cast<int>(strings_.size() - 1));
  }
  bool ReadClassDesc(int* out, int depth);
  bool ReadClassData(int cls, int object, int depth);
  // Annotations and custom data after the fields: block data and objects, to the end
  // mark; the objects into `*values`, the block data's bytes onto `*block`, when given.
  bool SkipToEndBlock(int depth, std::vector<Value>* values = nullptr, std::string* block = nullptr);

  std::string_view b_;
  size_t pos_ = 0;
  std::string error_;
  std::vector<ClassDesc> classes_;
  std::vector<Object> objects_;
  std::vector<std::string> strings_;
  bool ReadArray(Value* out, int depth);
  bool ReadEnum(Value* out, int depth);

  // Value::kObject for objects (kArray: arrays), kString for strings (kEnum: an enum
  // constant's name), kPrimitive standing for a class descriptor (kClass: a class).
  std::vector<std::pair<Value::Kind, int>> handles_;
};

// The field `name` of `o` (of any of its classes), or null.
const Value* FieldOf(const Object& o, std::string_view name);

}  // namespace wal::java
