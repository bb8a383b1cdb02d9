#include "recovery/partition_file.h"

#include "libwal/file_io.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <xxhash.h>

#include "libwal/coding.h"
#include "libwal/wal_writer.h"

namespace recovery {

std::string PartitionFileName(uint32_t cache_id, uint32_t partition) {
  return fmt::format("part-{:05}-{:05}.dat", cache_id, partition);
}

bool ParsePartitionFileName(std::string_view name, uint32_t* cache_id, uint32_t* partition) {
  if (name.size() < 20 || name.size() > 30 || name.substr(0, 5) != "part-" || !name.ends_with(".dat")) return false;
  const std::string_view numbers = name.substr(5, name.size() - 9);
  const size_t dash = numbers.find('-');
  if (dash == std::string_view::npos) return false;
  auto num = [](std::string_view s, uint32_t* out) {
    if (s.size() < 5 || s.size() > 10) return false;
    uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v > UINT32_MAX) return false;
    *out = static_cast<uint32_t>(v);
    return true;
  };
  uint32_t c = 0, p = 0;
  if (!num(numbers.substr(0, dash), &c) || !num(numbers.substr(dash + 1), &p)) return false;
  if (PartitionFileName(c, p) != name) return false;  // one name per file: no extra leading zeros
  *cache_id = c;
  *partition = p;
  return true;
}

std::vector<std::string> ListPartitionFiles(const std::string& dir) {
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::string>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    uint32_t c = 0, p = 0;
    if (ParsePartitionFileName(e.path().filename().string(), &c, &p)) found.push_back({{c, p}, e.path().string()});
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

std::string EncodePartitionFile(const PartitionFile& f) {
  std::string out;
  wal::PutFixed64(&out, kPartitionFileMagic);
  wal::PutFixed32(&out, kPartitionFileVersion);
  wal::PutFixed32(&out, f.cache_id);
  wal::PutFixed32(&out, f.partition);
  wal::PutFixed64(&out, f.lwm);
  wal::PutFixed64(&out, f.hwm);
  wal::PutFixed64(&out, f.entries.size());
  for (const auto& e : f.entries) {
    wal::PutBytes(&out, e.key);
    wal::PutBytes(&out, e.value);
    wal::PutFixed64(&out, e.counter);
  }
  wal::PutFixed64(&out, XXH3_64bits(out.data(), out.size()));
  return out;
}

uint64_t FileChecksum(std::string_view encoded) {
  return encoded.size() >= 8 ? wal::DecodeFixed64(encoded.data() + encoded.size() - 8) : 0;
}

wal::Result<PartitionFile> DecodePartitionFile(std::string_view bytes) {
  auto bad = [](size_t at, const std::string& what) {
    return wal::Status::Corruption(fmt::format("{} at byte {}", what, at));
  };
  if (bytes.size() < 52) return bad(0, fmt::format("file of {} bytes is too short", bytes.size()));
  const uint64_t stored = FileChecksum(bytes);
  const uint64_t actual = XXH3_64bits(bytes.data(), bytes.size() - 8);
  if (stored != actual) {
    return bad(bytes.size() - 8,
               fmt::format("checksum mismatch: expected 0x{:016x}, actual 0x{:016x}", stored, actual));
  }
  wal::Decoder d(bytes.substr(0, bytes.size() - 8));
  uint64_t magic = 0, count = 0;
  uint32_t version = 0;
  PartitionFile f;
  if (!d.GetFixed64(&magic) || magic != kPartitionFileMagic) return bad(0, "bad magic");
  if (!d.GetFixed32(&version) || version != kPartitionFileVersion) {
    return bad(8, fmt::format("unsupported version {}", version));
  }
  if (!(d.GetFixed32(&f.cache_id) && d.GetFixed32(&f.partition) && d.GetFixed64(&f.lwm) && d.GetFixed64(&f.hwm) &&
        d.GetFixed64(&count))) {
    return bad(d.position(), "short header");
  }
  if (count > d.remaining() / 16) return bad(d.position(), "entry count larger than the file");
  f.entries.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view k, v;
    auto& e = f.entries[i];
    size_t at = d.position();
    if (!(d.GetBytes(&k) && d.GetBytes(&v) && d.GetFixed64(&e.counter))) return bad(at, "short entry");
    e.key.assign(k);
    e.value.assign(v);
    if (i > 0 && !(f.entries[i - 1].key < e.key)) return bad(at, "keys out of order");
  }
  if (!d.done()) return bad(d.position(), "trailing bytes");
  return f;
}

wal::Status WritePartitionFile(const std::string& dir, const PartitionFile& f, bool sync) {
  return wal::WriteFileAtomically(dir + "/" + PartitionFileName(f.cache_id, f.partition), EncodePartitionFile(f), sync);
}

wal::Result<PartitionFile> ReadPartitionFile(const std::string& path) {
  auto bytes = wal::ReadFileToString(path, kMaxPartitionFileBytes);
  if (!bytes.ok()) return bytes.status();
  auto f = DecodePartitionFile(*bytes);
  if (!f.ok()) return wal::Status(f.status().code(), fmt::format("\"{}\": {}", path, f.status().message()));
  return f;
}

uint64_t ContentHash(const PartitionFile& f) {
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  std::string buf;
  for (const auto& e : f.entries) {
    buf.clear();
    wal::PutBytes(&buf, e.key);
    wal::PutBytes(&buf, e.value);
    XXH3_64bits_update(st, buf.data(), buf.size());
  }
  uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h;
}

}  // namespace recovery
