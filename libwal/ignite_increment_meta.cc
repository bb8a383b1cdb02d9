#include "libwal/ignite_increment_meta.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "libwal/file_io.h"

namespace wal {
namespace fs = std::filesystem;

namespace {

// Java Object Serialization Stream Protocol: the tags this metadata uses.
constexpr uint8_t kTcNull = 0x70;
constexpr uint8_t kTcReference = 0x71;
constexpr uint8_t kTcClassDesc = 0x72;
constexpr uint8_t kTcObject = 0x73;
constexpr uint8_t kTcString = 0x74;
constexpr uint8_t kTcBlockData = 0x77;
constexpr uint8_t kTcEndBlockData = 0x78;
constexpr uint8_t kTcBlockDataLong = 0x7A;
constexpr uint8_t kTcLongString = 0x7C;
constexpr uint32_t kBaseHandle = 0x7E0000;
constexpr uint8_t kScWriteMethod = 0x01;
constexpr uint8_t kScExternalizable = 0x04;

constexpr int kMaxDepth = 16;
constexpr size_t kMaxHandles = 4096;
constexpr uint64_t kMaxSmfBytes = 1 << 20;  // a few hundred bytes in practice

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

struct Value {
  enum Kind { kNull, kPrimitive, kString, kObject } kind = kNull;
  uint64_t bits = 0;   // a primitive, big-endian as read
  std::string text;    // a string (modified UTF-8, as written)
  int object = -1;     // index into objects
};

struct Object {
  int cls = -1;
  std::vector<std::pair<std::string, Value>> fields;  // of every class, topmost first
  std::vector<Value> written;  // what a writeObject method wrote after them (a set's elements)
};

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
  // mark; the objects into `*values` when given.
  bool SkipToEndBlock(int depth, std::vector<Value>* values = nullptr);

  std::string_view b_;
  size_t pos_ = 0;
  std::string error_;
  std::vector<ClassDesc> classes_;
  std::vector<Object> objects_;
  std::vector<std::string> strings_;
  // Value::kObject for objects, kString for strings, kPrimitive standing for a class.
  std::vector<std::pair<Value::Kind, int>> handles_;
};

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
  if (tag != kTcClassDesc) return Fail(fmt::format("unexpected tag 0x{:02x} for a class", tag));
  ClassDesc c;
  uint64_t suid = 0, flags = 0, count = 0;
  if (!Utf(2, &c.name) || !Bytes(8, &suid)) return false;
  const int index = static_cast<int>(classes_.size());
  classes_.emplace_back();
  if (!NewHandle(Value::kPrimitive, index) || !Bytes(1, &flags) || !Bytes(2, &count)) return false;
  c.flags = static_cast<uint8_t>(flags);
  if (c.flags & kScExternalizable) return Fail(fmt::format("class {} is externalizable", c.name));
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

bool JavaStream::SkipToEndBlock(int depth, std::vector<Value>* values) {
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
      pos_ += n;
      continue;
    }
    Value v;
    if (!ReadValue(&v, depth + 1)) return false;
    if (values != nullptr && values->size() < kMaxHandles) values->push_back(std::move(v));
  }
}

bool JavaStream::ReadClassData(int cls, int object, int depth) {
  std::vector<int> chain;  // the class, then its superclasses
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
    if ((c.flags & kScWriteMethod) && !SkipToEndBlock(depth, &written)) return false;
    auto& into = objects_[static_cast<size_t>(object)].written;
    into.insert(into.end(), std::make_move_iterator(written.begin()), std::make_move_iterator(written.end()));
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
      if (kind == Value::kString) {
        out->kind = Value::kString;
        out->text = strings_[static_cast<size_t>(index)];
      } else if (kind == Value::kObject) {
        out->kind = Value::kObject;
        out->object = index;
      } else {
        return Fail("reference to a class where a value belongs");
      }
      return true;
    }
    case kTcObject: {
      int cls = -1;
      if (!ReadClassDesc(&cls, depth + 1)) return false;
      if (cls < 0) return Fail("object of no class");
      const int index = static_cast<int>(objects_.size());
      objects_.push_back({cls, {}, {}});
      if (!NewHandle(Value::kObject, index) || !ReadClassData(cls, index, depth)) return false;
      out->kind = Value::kObject;
      out->object = index;
      return true;
    }
    default: return Fail(fmt::format("unexpected tag 0x{:02x}", tag));
  }
}

const Value* FieldOf(const Object& o, std::string_view name) {
  for (const auto& [n, v] : o.fields) {
    if (n == name) return &v;
  }
  return nullptr;
}

}  // namespace

Result<IgniteIncrementMeta> ParseIgniteIncrementMeta(std::string_view bytes) {
  JavaStream s(bytes);
  Value top;
  if (!s.Magic() || !s.ReadValue(&top, 0)) return Status::Corruption(s.error());
  if (!s.AtEnd()) return Status::Corruption(fmt::format("offset {}: bytes after the metadata", s.pos()));
  constexpr std::string_view kClass = "IncrementalSnapshotMetadata";
  if (top.kind != Value::kObject || !s.cls(s.object(top.object).cls).name.ends_with(kClass)) {
    return Status::Corruption("not an IncrementalSnapshotMetadata");
  }
  const Object& o = s.object(top.object);
  auto string_field = [&](std::string_view name, std::string* out) {
    const Value* v = FieldOf(o, name);
    if (!v || v->kind != Value::kString) return false;
    *out = v->text;
    return true;
  };
  IgniteIncrementMeta m;
  const Value* idx = FieldOf(o, "incIdx");
  if (!idx || idx->kind != Value::kPrimitive) return Status::Corruption("no incIdx");
  m.index = static_cast<uint32_t>(idx->bits);
  if (!string_field("snpName", &m.snapshot)) return Status::Corruption("no snpName");
  if (!string_field("folderName", &m.folder)) return Status::Corruption("no folderName");
  string_field("consId", &m.consistent_id);
  if (const Value* t = FieldOf(o, "snapshotTime"); t && t->kind == Value::kPrimitive) m.time_ms = t->bits;
  const Value* rq = FieldOf(o, "rqId");
  if (!rq || rq->kind != Value::kObject || s.cls(s.object(rq->object).cls).name != "java.util.UUID") {
    return Status::Corruption("no rqId");
  }
  const Value* lsb = FieldOf(s.object(rq->object), "leastSigBits");
  const Value* msb = FieldOf(s.object(rq->object), "mostSigBits");
  if (!lsb || !msb || lsb->kind != Value::kPrimitive || msb->kind != Value::kPrimitive) {
    return Status::Corruption("rqId is no UUID");
  }
  m.request_id = Uuid{msb->bits, lsb->bits};
  return m;
}

Result<IgniteSnapshotMeta> ParseIgniteSnapshotMeta(std::string_view bytes) {
  JavaStream s(bytes);
  Value top;
  if (!s.Magic() || !s.ReadValue(&top, 0)) return Status::Corruption(s.error());
  if (!s.AtEnd()) return Status::Corruption(fmt::format("offset {}: bytes after the metadata", s.pos()));
  if (top.kind != Value::kObject || !s.cls(s.object(top.object).cls).name.ends_with(".SnapshotMetadata")) {
    return Status::Corruption("not a SnapshotMetadata");
  }
  const Object& o = s.object(top.object);
  IgniteSnapshotMeta m;
  const Value* name = FieldOf(o, "snpName");
  const Value* cons = FieldOf(o, "consId");
  const Value* folder = FieldOf(o, "folderName");
  const Value* blt = FieldOf(o, "bltNodes");
  if (!name || name->kind != Value::kString) return Status::Corruption("no snpName");
  if (!cons || cons->kind != Value::kString) return Status::Corruption("no consId");
  if (!folder || folder->kind != Value::kString) return Status::Corruption("no folderName");
  if (!blt || blt->kind != Value::kObject) return Status::Corruption("no bltNodes");
  m.snapshot = name->text;
  m.consistent_id = cons->text;
  m.folder = folder->text;
  for (const Value& v : s.object(blt->object).written) {
    if (v.kind != Value::kString) return Status::Corruption("bltNodes holds something else than names");
    m.baseline.push_back(v.text);
  }
  if (m.baseline.empty()) return Status::Corruption("bltNodes is empty");
  std::sort(m.baseline.begin(), m.baseline.end());
  return m;
}

namespace {

// Each increments/<16 digits>/<folder>.smf of one snapshot directory.
void ListSmf(const fs::path& snapshot, const std::string& folder, std::vector<fs::path>* files,
             std::vector<std::string>* unreadable) {
  std::error_code ec;
  for (const auto& inc : fs::directory_iterator(snapshot / "increments", ec)) {
    const std::string name = inc.path().filename().string();
    if (name.size() != 16 || !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(c); })) {
      continue;
    }
    std::error_code ec2;
    fs::path smf = inc.path() / (folder + ".smf");
    if (fs::exists(smf, ec2)) files->push_back(std::move(smf));
  }
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
    unreadable->push_back(fmt::format("{}: {}", (snapshot / "increments").string(), ec.message()));
  }
}

// The full snapshot's metadata of the node (<snapshot>/<folder>.smf): the baseline.
void ReadBaseline(const fs::path& snapshot, const std::string& folder, IgniteNodeIncrements* out) {
  std::error_code ec;
  const fs::path smf = snapshot / (folder + ".smf");
  if (!fs::exists(smf, ec)) return;
  auto bytes = ReadFileToString(smf.string(), kMaxSmfBytes);
  if (!bytes.ok()) {
    out->unreadable.push_back(bytes.status().message());
    return;
  }
  auto meta = ParseIgniteSnapshotMeta(*bytes);
  if (!meta.ok()) {
    out->unreadable.push_back(fmt::format("{}: {}", smf.string(), meta.status().message()));
    return;
  }
  if (meta->folder != folder) {
    out->unreadable.push_back(fmt::format("{}: the metadata of node folder {}, not {}", smf.string(), meta->folder,
                                          folder));
    return;
  }
  out->consistent_id = meta->consistent_id;
  for (auto& n : meta->baseline) {
    if (std::find(out->baseline.begin(), out->baseline.end(), n) == out->baseline.end()) out->baseline.push_back(n);
  }
  std::sort(out->baseline.begin(), out->baseline.end());
}

void ReadSmf(std::vector<fs::path> files, const std::string& folder, IgniteNodeIncrements* out) {
  std::sort(files.begin(), files.end());
  for (const auto& smf : files) {
    const std::string path = smf.string();
    auto bytes = ReadFileToString(path, kMaxSmfBytes);
    if (!bytes.ok()) {
      out->unreadable.push_back(bytes.status().message());
      continue;
    }
    auto meta = ParseIgniteIncrementMeta(*bytes);
    if (!meta.ok()) {
      out->unreadable.push_back(fmt::format("{}: {}", path, meta.status().message()));
      continue;
    }
    const fs::path snapshot = fs::absolute(smf).lexically_normal().parent_path().parent_path().parent_path();
    const uint64_t index = std::stoull(smf.parent_path().filename().string());
    if (meta->snapshot != snapshot.filename().string() || meta->index != index || meta->folder != folder) {
      out->unreadable.push_back(fmt::format("{}: names increment {} of snapshot '{}' on {}, not what its path says",
                                            path, meta->index, meta->snapshot, meta->folder));
      continue;
    }
    out->kept.push_back({std::move(meta).value(), path});
  }
}

}  // namespace

IgniteNodeIncrements ReadIgniteIncrements(const std::string& work_dir, const std::string& folder) {
  IgniteNodeIncrements out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& snap : fs::directory_iterator(fs::path(work_dir) / "snapshots", ec)) {
    ReadBaseline(snap.path(), folder, &out);
    ListSmf(snap.path(), folder, &files, &out.unreadable);
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    out.unreadable.push_back(fmt::format("{}: {}", (fs::path(work_dir) / "snapshots").string(), ec.message()));
  }
  ReadSmf(std::move(files), folder, &out);
  return out;
}

void ReadIgniteSnapshotIncrements(const std::string& snapshot_dir, const std::string& folder,
                                  IgniteNodeIncrements* out) {
  std::vector<fs::path> files;
  ReadBaseline(snapshot_dir, folder, out);
  ListSmf(snapshot_dir, folder, &files, &out->unreadable);
  ReadSmf(std::move(files), folder, out);
}

}  // namespace wal
