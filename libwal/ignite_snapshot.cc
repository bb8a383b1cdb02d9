#include "libwal/ignite_snapshot.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/ignite_format.h"
#include "libwal/ignite_partition_file.h"
#include "libwal/java_stream.h"
#include "libwal/parse_once.h"

namespace wal {
namespace fs = std::filesystem;

namespace {

using java::FieldOf;
using java::JavaStream;
using java::Object;
using java::Value;

constexpr uint64_t kMaxCacheDataBytes = 16 << 20;
constexpr std::string_view kCacheDataFile = "cache_data.dat";

// Reads one UTF-8 sequence at s[*i] as a code point; a malformed byte reads as itself.
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<uint8_t>(s[*i]);
  const size_t n = b0 < 0x80 ? 0 : (b0 >> 5) == 6 ? 1 : (b0 >> 4) == 14 ? 2 : (b0 >> 3) == 30 ? 3 : SIZE_MAX;
  if (n == 0 || n == SIZE_MAX || *i + n >= s.size()) {
    ++*i;
    return b0;
  }
  uint32_t cp = b0 & (0x3Fu >> n);
  for (size_t k = 1; k <= n; ++k) {
    const auto b = static_cast<uint8_t>(s[*i + k]);
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return b0;
    }
    cp = cp << 6 | (b & 0x3Fu);
  }
  *i += n + 1;
  return cp;
}

uint32_t BigEndian32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) << 24 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 8 | static_cast<uint8_t>(b[at + 3]);
}

// The stream's one object, of a class whose name ends with `cls`.
Result<int> TopObject(JavaStream& s, std::string_view cls) {
  Value top;
  if (!s.Magic() || !s.ReadValue(&top, 0)) return Status::Corruption(s.error());
  if (!s.AtEnd()) return Status::Corruption(fmt::format("offset {}: bytes after the object", s.pos()));
  if (top.kind != Value::kObject || !s.cls(s.object(top.object).cls).name.ends_with(cls)) {
    return Status::Corruption(fmt::format("not a {}", cls.substr(cls.find_last_of('.') + 1)));
  }
  return top.object;
}

bool StringField(const Object& o, std::string_view name, std::string* out) {
  const Value* v = FieldOf(o, name);
  if (v == nullptr || v->kind != Value::kString) return false;
  *out = v->text;
  return true;
}

bool PrimitiveField(const Object& o, std::string_view name, uint64_t* out) {
  const Value* v = FieldOf(o, name);
  if (v == nullptr || v->kind != Value::kPrimitive) return false;
  *out = v->bits;
  return true;
}

// A java.lang.Integer object's value.
bool IntegerValue(const JavaStream& s, const Value& v, int32_t* out) {
  if (v.kind != Value::kObject || s.cls(s.object(v.object).cls).name != "java.lang.Integer") return false;
  uint64_t bits = 0;
  if (!PrimitiveField(s.object(v.object), "value", &bits)) return false;
  *out = static_cast<int32_t>(bits);
  return true;
}

}  // namespace

int32_t JavaStringHash(std::string_view name) {
  uint32_t h = 0;
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = NextCodePoint(name, &i);
    if (cp >= 0x10000) {  // a surrogate pair in UTF-16
      cp -= 0x10000;
      h = 31 * h + (0xD800 + (cp >> 10));
      h = 31 * h + (0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<int32_t>(h);
}

int32_t IgniteCacheId(std::string_view name) {
  const int32_t id = JavaStringHash(name);
  return id == 0 ? 1 : id;
}

int32_t IgniteMetastorageGroupId() { return IgniteCacheId("MetaStorage"); }

Result<IgniteCacheConfig> ParseIgniteCacheData(std::string_view bytes) {
  JavaStream s(bytes);
  auto top = TopObject(s, ".StoredCacheData");
  if (!top.ok()) return top.status();
  const Value* ccfg = FieldOf(s.object(*top), "ccfg");
  if (ccfg == nullptr || ccfg->kind != Value::kObject) return Status::Corruption("no ccfg (CacheConfiguration)");
  const Object& c = s.object(ccfg->object);
  IgniteCacheConfig out;
  if (!StringField(c, "name", &out.name)) return Status::Corruption("the cache configuration has no name");
  StringField(c, "grpName", &out.group);
  auto enum_field = [&](std::string_view name, std::string* to) {
    const Value* v = FieldOf(c, name);
    if (v != nullptr && v->kind == Value::kEnum) *to = v->text;
  };
  enum_field("atomicityMode", &out.atomicity);
  enum_field("cacheMode", &out.mode);
  enum_field("diskPageCompression", &out.compression);
  uint64_t bits = 0;
  if (PrimitiveField(c, "backups", &bits)) out.backups = static_cast<int32_t>(bits);
  if (PrimitiveField(c, "encryptionEnabled", &bits)) out.encrypted = bits != 0;
  if (out.atomicity.empty()) out.atomicity = "ATOMIC";  // Ignite's default when none is set
  return out;
}

const IgniteGroupDir::Cache* IgniteGroupDir::FindCache(int32_t cache_id) const {
  for (const auto& c : caches) {
    if (c.id == cache_id) return &c;
  }
  return nullptr;
}

Result<std::vector<IgniteGroupDir>> ListIgniteGroups(const std::string& store_dir) {
  std::error_code ec;
  std::vector<IgniteGroupDir> out;
  fs::directory_iterator it(store_dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot list \"{}\": {}", store_dir, ec.message()));
  for (const auto& entry : it) {
    if (!entry.is_directory(ec)) continue;
    const std::string dir = entry.path().filename().string();
    IgniteGroupDir g;
    g.path = entry.path().string();
    if (dir.starts_with("cacheGroup-")) {
      g.name = dir.substr(11);
      g.shared = true;
    } else if (dir.starts_with("cache-")) {
      g.name = dir.substr(6);
      if (g.name == "ignite-sys-cache") continue;
    } else if (dir == "metastorage") {
      g.name = "MetaStorage";
      g.metastorage = true;
    } else {
      continue;
    }
    g.id = IgniteCacheId(g.name);
    for (const auto& f : fs::directory_iterator(entry.path(), ec)) {
      const std::string name = f.path().filename().string();
      uint32_t partition = 0;
      if (ParsePageFileName(name, &partition)) {
        g.files.emplace_back(partition, f.path().string());
        continue;
      }
      if (!name.ends_with(kCacheDataFile)) continue;
      IgniteGroupDir::Cache cache;
      cache.name = g.shared ? name.substr(0, name.size() - kCacheDataFile.size()) : g.name;
      auto bytes = ReadFileToString(f.path().string(), kMaxCacheDataBytes);
      if (!bytes.ok()) {
        cache.problem = bytes.status().message();
      } else if (auto cfg = ParseOnce<IgniteCacheConfig, ParseIgniteCacheData>(*bytes); !cfg.ok()) {
        cache.problem = fmt::format("\"{}\": {}", f.path().string(), cfg.status().message());
      } else if (cfg->name != cache.name) {
        cache.problem =
            fmt::format("\"{}\": the configuration of cache '{}', not '{}'", f.path().string(), cfg->name, cache.name);
      } else {
        cache.config = std::move(cfg).value();
      }
      cache.id = IgniteCacheId(cache.name);
      g.caches.push_back(std::move(cache));
    }
    std::sort(g.files.begin(), g.files.end());
    std::sort(g.caches.begin(), g.caches.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Result<IgniteSnapshotMeta> ParseIgniteSnapshotMeta(std::string_view bytes) {
  JavaStream s(bytes);
  auto top = TopObject(s, ".SnapshotMetadata");
  if (!top.ok()) return top.status();
  const Object& o = s.object(*top);
  IgniteSnapshotMeta m;
  if (!StringField(o, "snpName", &m.snapshot)) return Status::Corruption("no snpName");
  if (!StringField(o, "consId", &m.consistent_id)) return Status::Corruption("no consId");
  if (!StringField(o, "folderName", &m.folder)) return Status::Corruption("no folderName");
  const Value* blt = FieldOf(o, "bltNodes");
  if (blt == nullptr || blt->kind != Value::kObject) return Status::Corruption("no bltNodes");
  for (const Value& v : s.object(blt->object).written) {
    if (v.kind != Value::kString) return Status::Corruption("bltNodes holds something else than names");
    m.baseline.push_back(v.text);
  }
  if (m.baseline.empty()) return Status::Corruption("bltNodes is empty");
  std::sort(m.baseline.begin(), m.baseline.end());
  const Value* rq = FieldOf(o, "rqId");
  uint64_t msb = 0, lsb = 0;
  if (rq != nullptr && rq->kind == Value::kObject && PrimitiveField(s.object(rq->object), "mostSigBits", &msb) &&
      PrimitiveField(s.object(rq->object), "leastSigBits", &lsb)) {
    m.request_id = Uuid{msb, lsb};
  }
  uint64_t bits = 0;
  if (PrimitiveField(o, "pageSize", &bits)) m.page_size = static_cast<uint32_t>(bits);
  if (PrimitiveField(o, "snapshotTime", &bits)) m.time_ms = bits;
  if (PrimitiveField(o, "hasComprGrps", &bits)) m.compressed = bits != 0;
  if (PrimitiveField(o, "dump", &bits)) m.dump = bits != 0;
  if (PrimitiveField(o, "onlyPrimary", &bits)) m.only_primary = bits != 0;
  const Value* digest = FieldOf(o, "masterKeyDigest");
  m.encrypted = digest != nullptr && digest->kind != Value::kNull;
  if (const Value* g = FieldOf(o, "grpIds"); g != nullptr && g->kind == Value::kObject) {
    for (const Value& v : s.object(g->object).written) {
      int32_t id = 0;
      if (!IntegerValue(s, v, &id)) return Status::Corruption("grpIds holds something else than integers");
      m.groups.push_back(id);
    }
  }
  if (const Value* p = FieldOf(o, "snpRecPtr"); p != nullptr && p->kind == Value::kObject) {
    uint64_t idx = 0, off = 0;
    if (!PrimitiveField(s.object(p->object), "idx", &idx) || !PrimitiveField(s.object(p->object), "fileOff", &off)) {
      return Status::Corruption("snpRecPtr is no WAL pointer");
    }
    m.record = Pointer{idx, static_cast<uint32_t>(off)};
  }
  // What SnapshotMetadata.writeObject wrote after its fields: the partitions by group.
  const std::string& b = o.block;
  if (b.size() < 4) return Status::Corruption("no partitions after the fields");
  size_t at = 0;
  const uint32_t groups = BigEndian32(b, at);
  at += 4;
  for (uint32_t g = 0; g < groups; ++g) {
    if (b.size() - at < 8) return Status::Corruption("the partitions are cut short");
    const auto grp = static_cast<int32_t>(BigEndian32(b, at));
    const uint32_t n = BigEndian32(b, at + 4);
    at += 8;
    if (n > (b.size() - at) / 4) return Status::Corruption("the partitions are cut short");
    auto& parts = m.partitions[grp];
    for (uint32_t i = 0; i < n; ++i, at += 4) parts.push_back(BigEndian32(b, at));
    std::sort(parts.begin(), parts.end());
  }
  return m;
}

}  // namespace wal
