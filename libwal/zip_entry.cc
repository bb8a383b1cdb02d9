#include "libwal/zip_entry.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include <libdeflate.h>

#include <fmt/format.h>

#include "libwal/coding.h"

namespace wal {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr size_t kLocalSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kEndSize = 22;

uint16_t U16(std::string_view z, size_t at) { return DecodeFixed16(z.data() + at); }
uint32_t U32(std::string_view z, size_t at) { return DecodeFixed32(z.data() + at); }

Status Bad(uint64_t at, std::string_view what) {
  return Status::Corruption(fmt::format("zip: {} at byte {}", what, at));
}

// The end of central directory record: the last signature that fits, with a comment
// reaching exactly to the end of the file.
bool FindEnd(std::string_view z, size_t* at) {
  if (z.size() < kEndSize) return false;
  const size_t lowest = z.size() > kEndSize + 0xFFFF ? z.size() - kEndSize - 0xFFFF : 0;
  for (size_t i = z.size() - kEndSize + 1; i-- > lowest;) {
    if (U32(z, i) == kEndSig && i + kEndSize + U16(z, i + 20) == z.size()) {
      *at = i;
      return true;
    }
  }
  return false;
}

// The entry's data offset from its local header at `local`.
Status LocalData(std::string_view z, uint64_t local, ZipEntryInfo* e) {
  if (local > z.size() || z.size() - local < kLocalSize || U32(z, local) != kLocalSig) {
    return Bad(local, "no local file header");
  }
  const uint64_t data = local + kLocalSize + U16(z, local + 26) + U16(z, local + 28);
  if (data > z.size()) return Bad(local, "local file header runs past the end of the file");
  e->data_offset = data;
  if (!e->from_directory) {
    e->method = U16(z, local + 8);
    e->name =
        std::string(z.substr(local + kLocalSize, std::min<size_t>(U16(z, local + 26), z.size() - local - kLocalSize)));
    e->compressed_size = z.size() - data;
  } else if (e->compressed_size > z.size() - data) {
    return Bad(local, "entry data runs past the end of the file");
  }
  return Status::Ok();
}

}  // namespace

Result<ZipEntryInfo> FindZipEntry(std::string_view z) {
  ZipEntryInfo e;
  size_t end = 0;
  if (!FindEnd(z, &end)) {
    // No central directory (a file cut short): read from the first local header.
    WAL_RETURN_IF_ERROR(LocalData(z, 0, &e));
  } else {
    const uint64_t entries = U16(z, end + 10);
    const uint64_t cd = U32(z, end + 16);
    if (cd == 0xFFFFFFFF || entries == 0xFFFF) return Status::NotSupported("zip: ZIP64 archives are not read");
    uint64_t at = cd;
    bool found = false;
    for (uint64_t i = 0; i < entries && !found; ++i) {
      if (at > end || end - at < kCentralSize || U32(z, at) != kCentralSig) {
        return Bad(at, "bad central directory entry");
      }
      const size_t name_len = U16(z, at + 28);
      const uint64_t next = at + kCentralSize + name_len + U16(z, at + 30) + U16(z, at + 32);
      if (next > end) return Bad(at, "central directory entry runs past its end");
      std::string_view name = z.substr(at + kCentralSize, name_len);
      if (name.size() >= 4 && name.substr(name.size() - 4) == ".wal") {
        found = true;
        e.from_directory = true;
        e.name = std::string(name);
        e.method = U16(z, at + 10);
        e.crc = U32(z, at + 16);
        e.compressed_size = U32(z, at + 20);
        e.size = U32(z, at + 24);
        if (e.compressed_size == 0xFFFFFFFF || e.size == 0xFFFFFFFF) {
          return Status::NotSupported("zip: ZIP64 entries are not read");
        }
        WAL_RETURN_IF_ERROR(LocalData(z, U32(z, at + 42), &e));
      }
      at = next;
    }
    if (!found) return Status::Corruption("zip: no entry named <index>.wal");
  }
  if (e.method != 0 && e.method != 8) {
    return Status::NotSupported(fmt::format(
        "zip: entry \"{}\" uses compression method {} (only deflate and stored are read)", e.name, e.method));
  }
  return e;
}

struct ZipEntryStream::Z {
  z_stream s{};
  bool open = false;
  ~Z() {
    if (open) inflateEnd(&s);
  }
};

ZipEntryStream::~ZipEntryStream() = default;

Result<std::unique_ptr<ZipEntryStream>> ZipEntryStream::Open(std::string_view zip) {
  auto info = FindZipEntry(zip);
  if (!info.ok()) return info.status();
  return Start(zip, std::move(info).value());
}

Result<std::unique_ptr<ZipEntryStream>> ZipEntryStream::Start(std::string_view zip, ZipEntryInfo info) {
  std::unique_ptr<ZipEntryStream> st(new ZipEntryStream());
  st->zip_ = zip;
  st->info_ = std::move(info);
  st->z_ = std::make_unique<Z>();
  if (st->info_.method == 8) {
    if (inflateInit2(&st->z_->s, -MAX_WBITS) != Z_OK) return Status::Internal("cannot start a zlib inflater");
    st->z_->open = true;
  }
  return st;
}

Result<std::unique_ptr<ZipEntryStream>> ZipEntryStream::OpenFirstLocal(std::string_view prefix) {
  ZipEntryInfo info;
  WAL_RETURN_IF_ERROR(LocalData(prefix, 0, &info));
  if (info.method != 0 && info.method != 8) {
    return Status::NotSupported(fmt::format("zip: entry \"{}\" uses compression method {}", info.name, info.method));
  }
  return Start(prefix, std::move(info));
}

uint64_t ZipEntryStream::input_offset() const { return info_.data_offset + in_pos_; }

bool ZipEntryStream::ReadWhole(char* out, size_t cap, size_t* n) {
  if (info_.method != 8 || !info_.from_directory || info_.size > cap || in_pos_ != 0 || out_ != 0) return false;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return false;
  size_t got = 0;
  const libdeflate_result rc = libdeflate_deflate_decompress(d, zip_.data() + info_.data_offset, info_.compressed_size,
                                                             out, static_cast<size_t>(info_.size), &got);
  libdeflate_free_decompressor(d);
  if (rc != LIBDEFLATE_SUCCESS || got != info_.size || libdeflate_crc32(0, out, got) != info_.crc) return false;
  in_pos_ = info_.compressed_size;
  out_ = got;
  crc_ = info_.crc;
  *n = got;
  return true;
}

// One call of inflate (or a copy, for a stored entry) at a time, in steps that keep
// every size within zlib's 32-bit counters.
size_t ZipEntryStream::Read(char* out, size_t max, bool* done, std::string* damage) {
  *done = false;
  const char* in = zip_.data() + info_.data_offset;
  const uint64_t in_left = info_.compressed_size - in_pos_;
  max = std::min<size_t>(max, 1u << 30);
  size_t n = 0;
  bool ended = false;
  if (info_.method == 0) {
    const uint64_t want = info_.from_directory ? info_.size - out_ : in_left;
    n = static_cast<size_t>(std::min<uint64_t>({max, want, in_left}));
    std::memcpy(out, in + in_pos_, n);
    in_pos_ += n;
    ended = out_ + n == (info_.from_directory ? info_.size : info_.compressed_size) || in_pos_ == info_.compressed_size;
  } else {
    z_stream& s = z_->s;
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in + in_pos_));
    s.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
    s.next_out = reinterpret_cast<Bytef*>(out);
    s.avail_out = static_cast<uInt>(max);
    const int rc = inflate(&s, Z_NO_FLUSH);
    n = max - s.avail_out;
    const uint64_t used = std::min<uint64_t>(in_left, 1u << 30) - s.avail_in;
    in_pos_ += used;
    if (rc == Z_STREAM_END) {
      ended = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      *damage = fmt::format("damaged deflate data in zip entry \"{}\" at zip byte {}: {}", info_.name, input_offset(),
                            s.msg != nullptr ? s.msg : "inflate error");
      *done = true;
    } else if (n == 0 && used == 0 && max != 0) {
      *damage =
          fmt::format("zip entry \"{}\" cut short: its deflate data ends at zip byte {}", info_.name, input_offset());
      *done = true;
    }
  }
  crc_ = libdeflate_crc32(crc_, out, n);
  out_ += n;
  if (ended) {
    *done = true;
    if (info_.from_directory && (out_ != info_.size || crc_ != info_.crc)) {
      mismatch_ = fmt::format(
          "zip entry \"{}\" does not match its central directory: {} bytes with CRC 0x{:08x}, "
          "expected {} bytes with CRC 0x{:08x}",
          info_.name, out_, crc_, info_.size, info_.crc);
    }
  }
  return n;
}

}  // namespace wal
