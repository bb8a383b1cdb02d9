#include "libwal/segment_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "libwal/format.h"
#include "libwal/lz4_codec.h"
#include "libwal/zip_entry.h"

#include <lz4frame.h>

namespace wal {

namespace {

// Output regions of finished streams, kept for the next ones: unmapping a region, in a
// process whose other threads run on other cores, interrupts every one of them to flush
// its TLB (a restore of three nodes' .wal.zip segments spent nearly half its time there).
// A kept region holds the few pages its stream had not given back yet.
class RegionPool {
 public:
  static RegionPool& Get() {
    static RegionPool* pool = new RegionPool;  // never destroyed: streams may end at exit
    return *pool;
  }
  char* Take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        char* r = free_.back();
        free_.pop_back();
        return r;
      }
    }
    void* out =
        mmap(nullptr, kMaxSegmentSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return out == MAP_FAILED ? nullptr : static_cast<char*>(out);
  }
  void Give(char* region) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_.size() < kKept) {
        free_.push_back(region);
        return;
      }
    }
    munmap(region, kMaxSegmentSize);
  }

 private:
  static constexpr size_t kKept = 8;  // streams read at once: a few per core
  std::mutex mu_;
  std::vector<char*> free_;
};

}  // namespace

// A streamed .wal.lz4 or .wal.zip: the compressed bytes (mapped, or held for an
// in-memory file), the decompressor (an LZ4 context, or the zip entry's inflater), and
// the output region (address space reserved for the largest segment, pages committed as
// they are written; from RegionPool, and back to it).
// The whole inflations of lazy readings in flight, process-wide: one per core, of at most
// kMaxBytes each. A check reads many nodes at once, each holding a segment in hand: they
// hold a few whole (the pages given back as read), not one each; the rest are inflated a
// MiB at a time.
class LazyWhole {
 public:
  static constexpr uint64_t kMaxBytes = 64 << 20;  // Ignite's default segment size
  static bool Take() {
    const unsigned cap = std::max(1u, std::thread::hardware_concurrency());
    unsigned cur = taken_.load();
    while (cur < cap) {
      if (taken_.compare_exchange_weak(cur, cur + 1)) return true;
    }
    return false;
  }
  static void Give() { taken_.fetch_sub(1); }

 private:
  static inline std::atomic<unsigned> taken_{0};
};

struct SegmentBytes::Stream {
  std::string path;
  LZ4F_dctx* dctx = nullptr;
  std::unique_ptr<ZipEntryStream> zip;
  const char* in = nullptr;
  size_t in_size = 0;
  size_t in_pos = 0;
  void* in_map = nullptr;
  std::shared_ptr<const std::string> in_memory;
  char* out = nullptr;
  // A .wal.zip inflated whole at the first step (libdeflate, several times zlib's speed),
  // when its central directory says it is at most LazyWhole::kMaxBytes: for a reading of
  // one WAL at a time (not lazy; the next segment is then inflated on the prefetch thread),
  // or, for a lazy reading (many nodes at once), while it holds one of the process's
  // LazyWhole slots. Either way the pages go back as they are read past.
  bool whole = false;
  bool lazy = false;
  bool holds_slot = false;
  size_t inflated_whole = 0;  // bytes written at once: given back with the region
  bool done = false;          // the frame is decompressed whole, or damage stopped it
  std::string damage;

  ~Stream() {
    if (holds_slot) LazyWhole::Give();
    if (dctx != nullptr) LZ4F_freeDecompressionContext(dctx);
    if (in_map != nullptr) munmap(in_map, in_size);
    if (out != nullptr) {
      // A reading that stopped part way leaves the rest of a whole inflation resident: the
      // pool keeps regions for the next stream, not their pages.
      if (inflated_whole > 0) madvise(out, inflated_whole, MADV_DONTNEED);
      RegionPool::Get().Give(out);
    }
  }
};

SegmentBytes::SegmentBytes() = default;

SegmentBytes::SegmentBytes(SegmentBytes&& other) noexcept { *this = std::move(other); }

SegmentBytes& SegmentBytes::operator=(SegmentBytes&& other) noexcept {
  if (this == &other) return *this;
  Release();
  map_ = std::exchange(other.map_, nullptr);
  map_size_ = std::exchange(other.map_size_, 0);
  dropped_ = std::exchange(other.dropped_, 0);
  stream_ = std::move(other.stream_);
  bool owned = other.data_ != nullptr && other.data_ == other.owned_.data();
  owned_ = std::move(other.owned_);
  data_ = owned ? owned_.data() : other.data_;
  size_ = other.size_;
  other.data_ = nullptr;
  other.size_ = 0;
  return *this;
}

SegmentBytes::~SegmentBytes() { Release(); }

void SegmentBytes::Release() {
  if (map_ != nullptr) munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  dropped_ = 0;
  data_ = nullptr;
  size_ = 0;
  owned_.clear();
  stream_.reset();
}

SegmentBytes SegmentBytes::FromString(std::string bytes) {
  SegmentBytes s;
  s.owned_ = std::move(bytes);
  s.data_ = s.owned_.data();
  s.size_ = s.owned_.size();
  return s;
}

bool SegmentBytes::complete() const { return stream_ == nullptr || stream_->done; }

const std::string& SegmentBytes::entry_mismatch() const {
  static const std::string kNone;
  return stream_ != nullptr && stream_->zip ? stream_->zip->mismatch() : kNone;
}

const std::string& SegmentBytes::damage() const {
  static const std::string kNone;
  return stream_ != nullptr ? stream_->damage : kNone;
}

bool SegmentBytes::Fill(size_t upto) {
  constexpr size_t kReadStep = 1 << 20;  // a reading decompresses ahead, a MiB at a time
  if (size_ >= upto) return true;
  if (stream_ == nullptr) return false;
  return Decompress(upto, kReadStep);
}

bool SegmentBytes::FillHead(size_t upto) {
  if (size_ >= upto) return true;
  if (stream_ == nullptr) return false;
  stream_->whole = false;  // a look at the start, not a reading
  return Decompress(upto, upto - size_);
}

// Decompresses in steps of at most `step` bytes of output until `upto` bytes are out,
// the frame ends, or damage stops it.
bool SegmentBytes::Decompress(size_t upto, size_t step) {
  Stream& st = *stream_;
  if (st.whole && st.zip && size_ == 0 && !st.done) {
    st.whole = false;  // tried once; on failure the stream locates what is wrong
    const ZipEntryInfo& info = st.zip->info();
    const bool go =
        info.from_directory && info.size <= LazyWhole::kMaxBytes && (!st.lazy || (st.holds_slot = LazyWhole::Take()));
    size_t n = 0;
    if (go && st.zip->ReadWhole(st.out, kMaxSegmentSize, &n)) {
      st.inflated_whole = n;
      size_ = n;
      st.done = true;
      return size_ >= upto;
    }
  }
  while (size_ < upto && !st.done) {
    if (size_ >= kMaxSegmentSize) {
      st.damage =
          fmt::format("{} decompresses past the segment size limit of {} bytes (at compressed byte {})",
                      st.zip ? "zip entry" : "lz4 frame", kMaxSegmentSize, st.zip ? st.zip->input_offset() : st.in_pos);
      st.done = true;
      break;
    }
    size_t dst = std::min(step, kMaxSegmentSize - size_);
    if (st.zip) {
      size_ += st.zip->Read(st.out + size_, dst, &st.done, &st.damage);
      continue;
    }
    size_t src = st.in_size - st.in_pos;
    const size_t hint = LZ4F_decompress(st.dctx, st.out + size_, &dst, st.in + st.in_pos, &src, nullptr);
    if (LZ4F_isError(hint)) {
      st.damage = fmt::format("damaged lz4 frame at compressed byte {}: {}", st.in_pos, LZ4F_getErrorName(hint));
      st.done = true;
      break;
    }
    st.in_pos += src;
    size_ += dst;
    if (hint == 0) {
      st.done = true;  // the frame is whole (its content checksum verified by lz4)
      if (st.in_pos != st.in_size) {
        st.damage = fmt::format("trailing bytes after the lz4 frame at compressed byte {}", st.in_pos);
      }
    } else if (src == 0 && dst == 0) {
      st.damage = st.in_pos == st.in_size
                      ? fmt::format("truncated lz4 frame: input ends at compressed byte {}", st.in_size)
                      : fmt::format("damaged lz4 frame at compressed byte {}: no progress", st.in_pos);
      st.done = true;
    }
  }
  return size_ >= upto;
}

bool SegmentBytes::AllZeroFrom(size_t from) {
  constexpr size_t kStep = 4 << 20;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t at = from;
  for (;;) {
    Fill(at + kStep);
    const size_t end = size_;
    static const char kZeros[4096] = {};
    while (at < end) {
      const size_t n = std::min(sizeof kZeros, end - at);
      if (std::memcmp(data_ + at, kZeros, n) != 0) return false;
      at += n;
    }
    // Pages of zeros passed are given back: read again, they are zeros.
    if (stream_ != nullptr && end > from + page) {
      const size_t a = (from + page - 1) / page * page;
      const size_t b = end / page * page;
      if (b > a) madvise(stream_->out + a, b - a, MADV_DONTNEED);
    }
    if (complete() || !Fill(end + 1)) return true;
  }
}

namespace {

Status ReadWhole(int fd, const std::string& path, size_t size, std::string* out) {
  out->resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out->data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(fmt::format("cannot read \"{}\": {}", path, strerror(errno)));
    if (n == 0) break;  // the file shrank under us: read what is there
    done += static_cast<size_t>(n);
  }
  out->resize(done);
  return Status::Ok();
}

}  // namespace

void SegmentBytes::DropBefore(size_t offset) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (stream_ != nullptr) {
    // The decompressor may still read the last 64 KiB of its output (a linked block's
    // dictionary): those stay.
    constexpr size_t kDictionary = 64 << 10;
    const size_t keep = size_ > kDictionary ? size_ - kDictionary : 0;
    const size_t upto = std::min(offset, keep) / page * page;
    if (upto > dropped_) {
      madvise(stream_->out + dropped_, upto - dropped_, MADV_DONTNEED);
      dropped_ = upto;
    }
    // And the compressed bytes read past (a mapped file's pages go back to the cache).
    if (stream_->in_map != nullptr) {
      const size_t in_pos = stream_->zip ? static_cast<size_t>(stream_->zip->input_offset()) : stream_->in_pos;
      const size_t in_upto = in_pos / page * page;
      if (in_upto > page) madvise(stream_->in_map, in_upto - page, MADV_DONTNEED);
    }
    return;
  }
  if (map_ == nullptr) return;
  size_t upto = std::min(offset, map_size_) / page * page;
  if (upto <= dropped_) return;
  madvise(static_cast<char*>(map_) + dropped_, upto - dropped_, MADV_DONTNEED);
  dropped_ = upto;
}

namespace {

// Maps `path` read-only (its size in *size), or reads it when it cannot be mapped.
Status MapOrRead(const std::string& path, bool lazy, void** map, size_t* size, std::string* read) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(fmt::format("cannot open \"{}\": {}", path, strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::IoError(fmt::format("cannot stat \"{}\": {}", path, strerror(e)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IoError(fmt::format("\"{}\" is not a regular file", path));
  }
  *size = static_cast<size_t>(st.st_size);
  *map = nullptr;
  if (*size == 0) {
    ::close(fd);
    return Status::Ok();
  }
  // A small file is read, not mapped (see MappedFile::Open: unmapping costs every core a TLB flush).
  void* m = *size >= (size_t{1} << 20) ? mmap(nullptr, *size, PROT_READ, MAP_PRIVATE | (lazy ? 0 : MAP_POPULATE), fd, 0)
                                       : MAP_FAILED;
  if (m == MAP_FAILED) {
    Status rs = ReadWhole(fd, path, *size, read);
    ::close(fd);
    *size = read->size();
    return rs;
  }
  ::close(fd);
  madvise(m, *size, MADV_SEQUENTIAL);
  *map = m;
  return Status::Ok();
}

}  // namespace

Result<SegmentBytes> SegmentBytes::Load(const SegmentFile& file, bool lazy, bool stream) {
  if (file.zip && !stream) {
    // Read whole: the stream, run to its end.
    auto s = OpenStream(file);
    if (!s.ok()) return s.status();
    s->Fill(kMaxSegmentSize);
    if (!s->damage().empty()) return Status::Corruption(fmt::format("\"{}\": {}", file.path, s->damage()));
    return s;
  }
  if ((file.compressed || file.zip) && stream) {
    auto s = OpenStream(file);
    if (s.ok()) {
      s->stream_->whole = true;
      s->stream_->lazy = lazy;
    }
    return s;
  }
  if (file.memory) {
    if (!file.compressed) return FromString(*file.memory);
    auto plain = DecompressLz4Frame(*file.memory, kMaxSegmentSize);
    if (!plain.ok()) {
      return Status(plain.status().code(), fmt::format("\"{}\": {}", file.path, plain.status().message()));
    }
    return FromString(std::move(plain).value());
  }
  return ReadFile(file, lazy);
}

Result<SegmentBytes> SegmentBytes::OpenStream(const SegmentFile& file) {
  auto st = std::make_unique<Stream>();
  st->path = file.path;
  if (file.memory) {
    st->in_memory = file.memory;
    st->in = file.memory->data();
    st->in_size = file.memory->size();
  } else {
    std::string read;
    WAL_RETURN_IF_ERROR(MapOrRead(file.path, true, &st->in_map, &st->in_size, &read));
    if (st->in_map != nullptr) {
      st->in = static_cast<const char*>(st->in_map);
    } else {
      st->in_memory = std::make_shared<const std::string>(std::move(read));
      st->in = st->in_memory->data();
    }
  }
  if (file.zip) {
    auto zip = ZipEntryStream::Open(std::string_view(st->in, st->in_size));
    if (!zip.ok()) return Status(zip.status().code(), fmt::format("\"{}\": {}", file.path, zip.status().message()));
    st->zip = std::move(zip).value();
  } else if (LZ4F_isError(LZ4F_createDecompressionContext(&st->dctx, LZ4F_VERSION))) {
    return Status::Internal("cannot create an lz4 decompression context");
  }
  st->out = RegionPool::Get().Take();
  if (st->out == nullptr) {
    return Status::IoError(fmt::format("cannot reserve memory for \"{}\": {}", file.path, strerror(errno)));
  }
  SegmentBytes s;
  s.data_ = st->out;
  s.size_ = 0;
  s.stream_ = std::move(st);
  return s;
}

Result<SegmentBytes> SegmentBytes::ReadFile(const SegmentFile& file, bool lazy) {
  int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IoError(fmt::format("cannot open \"{}\": {}", file.path, strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::IoError(fmt::format("cannot stat \"{}\": {}", file.path, strerror(e)));
  }
  auto size = static_cast<size_t>(st.st_size);
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IoError(fmt::format("\"{}\" is not a regular file", file.path));
  }
  if (file.compressed) {
    std::string compressed;
    Status s = ReadWhole(fd, file.path, size, &compressed);
    ::close(fd);
    WAL_RETURN_IF_ERROR(s);
    auto plain = DecompressLz4Frame(compressed, kMaxSegmentSize);
    if (!plain.ok()) {
      return Status(plain.status().code(), fmt::format("\"{}\": {}", file.path, plain.status().message()));
    }
    return FromString(std::move(plain).value());
  }
  if (size > kMaxSegmentSize) {
    ::close(fd);
    return Status::Corruption(
        fmt::format("\"{}\" is {} bytes, larger than any segment ({} bytes)", file.path, size, kMaxSegmentSize));
  }
  SegmentBytes s;
  if (size == 0) {
    ::close(fd);
    return s;
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (lazy ? 0 : MAP_POPULATE), fd, 0);
  if (map == MAP_FAILED) {
    std::string bytes;
    Status rs = ReadWhole(fd, file.path, size, &bytes);
    ::close(fd);
    WAL_RETURN_IF_ERROR(rs);
    return FromString(std::move(bytes));
  }
  ::close(fd);
  madvise(map, size, MADV_SEQUENTIAL);
  s.map_ = map;
  s.map_size_ = size;
  s.data_ = static_cast<const char*>(map);
  s.size_ = size;
  return s;
}

}  // namespace wal
