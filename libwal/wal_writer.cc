#include "libwal/wal_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/lz4_codec.h"
#include "libwal/record.h"
#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "libwal/write_all.h"

namespace wal {
namespace {

WriteHook* g_write_hook = nullptr;

}  // namespace

WriteHook* InstallWriteHook(WriteHook* hook) {
  WriteHook* before = g_write_hook;
  g_write_hook = hook;
  return before;
}

Status WriteAll(int fd, const std::string& path, std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t want = bytes.size();
    if (g_write_hook != nullptr) {
      const size_t allowed = g_write_hook->Allow(want);
      if (allowed < want) {
        if (allowed > 0) (void)!::write(fd, bytes.data(), allowed);
        g_write_hook->Fault();
        return Status::IoError(fmt::format("cannot write \"{}\": a fault was injected", path));
      }
    }
    ssize_t n = ::write(fd, bytes.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status CompressSegmentFile(const std::string& path) {
  SegmentFile f;
  f.path = path;
  auto bytes = SegmentBytes::Load(f);
  if (!bytes.ok()) return bytes.status();
  auto packed = CompressLz4Frame(bytes->bytes());
  if (!packed.ok()) return packed.status();
  WAL_RETURN_IF_ERROR(WriteFileAtomically(path + ".lz4", *packed));
  if (::unlink(path.c_str()) != 0) return Errno("remove", path);
  return SyncDirectory(ParentOf(path));
}

namespace {

// Saves the bytes of a torn tail beside the WAL as torn-SEG-OFF.bin before they are cut
// off, without ever replacing a tail saved before: a run interrupted while appending
// leaves its own partial record at the same place, and the rerun must keep the first
// file (the node's bytes). Equal bytes are saved already; other bytes go to
// torn-SEG-OFF.N.bin, the first N free.
Status SaveTornTail(const std::string& wal_dir, uint64_t segment, uint64_t offset, std::string_view tail) {
  const std::string stem = (std::filesystem::path(wal_dir) / fmt::format("torn-{:016}-{}", segment, offset)).string();
  for (int n = 0; n < 1000; ++n) {
    const std::string path = n == 0 ? stem + ".bin" : fmt::format("{}.{}.bin", stem, n);
    auto have = ReadFileToString(path, tail.size() + 1);
    if (have.ok() && *have == tail) return Status::Ok();
    if (!have.ok() && have.status().code() == StatusCode::kNotFound) return WriteFileAtomically(path, tail);
  }
  return Status::AlreadyExists(fmt::format("\"{}.bin\": too many saved tails", stem));
}

}  // namespace

Result<std::unique_ptr<WalWriter>> WalWriter::OpenForAppend(const std::string& wal_dir, WriterOptions options) {
  auto files = ListSegments(wal_dir);
  if (!files.ok()) return files.status();
  if (files->empty()) return Status::NotFound(fmt::format("\"{}\" holds no WAL segments", wal_dir));
  std::string first_error;
  std::optional<Issue> torn;
  auto reader = WalReader::OpenFiles(*files, {}, [&](const Issue& i) {
    if (i.kind == IssueKind::kTornTail)
      torn = i;
    else if (first_error.empty())
      first_error = i.ToString();
  });
  const Record* r = nullptr;
  while (reader->Next(&r)) {
  }
  if (!first_error.empty()) {
    return Status::Corruption(fmt::format("will not append to a damaged WAL: {}", first_error));
  }
  if (!reader->node_id()) return Status::Corruption(fmt::format("\"{}\": no segment header could be read", wal_dir));
  const SegmentFile& last = files->back();
  if (last.compressed) {
    return Status::NotSupported(fmt::format("the last segment \"{}\" is compressed", last.path));
  }
  std::unique_ptr<WalWriter> w(new WalWriter(wal_dir, *reader->node_id(), reader->node_order(), options));
  const Pointer end = reader->end();
  if (end.segment > last.index) {
    // The last segment is sealed: continue in a new one.
    WAL_RETURN_IF_ERROR(w->OpenSegment(last.index + 1));
    return w;
  }
  const std::string& path = last.path;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::IoError(fmt::format("cannot stat \"{}\": {}", path, ec.message()));
  if (end.offset == 0 && end.segment == last.index) {
    // The segment never got a whole header (a crash right after creating it): keep its
    // bytes and start it again.
    if (size > 0) {
      SegmentFile f = last;
      auto bytes = SegmentBytes::Load(f);
      if (!bytes.ok()) return bytes.status();
      WAL_RETURN_IF_ERROR(SaveTornTail(wal_dir, last.index, 0, bytes->bytes()));
    }
    if (::unlink(path.c_str()) != 0) return Errno("remove", path);
    WAL_RETURN_IF_ERROR(w->OpenSegment(last.index));
    return w;
  }
  if (end.offset == 0 || size < end.offset) {
    return Status::Corruption(fmt::format("\"{}\": no sound record to append after", path));
  }
  if (size > end.offset) {
    // A torn tail: keep its bytes, then cut it off. If we die between the two steps the
    // next run finds the same tail and finds it saved already.
    std::string tail;
    {
      SegmentFile f = last;
      auto bytes = SegmentBytes::Load(f);
      if (!bytes.ok()) return bytes.status();
      tail.assign(bytes->bytes().substr(end.offset));
    }
    WAL_RETURN_IF_ERROR(SaveTornTail(wal_dir, last.index, end.offset, tail));
    if (::truncate(path.c_str(), static_cast<off_t>(end.offset)) != 0) return Errno("truncate", path);
  }
  w->path_ = path;
  w->fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (w->fd_ < 0) return Errno("open", path);
  if (::fsync(w->fd_) != 0) return Errno("fsync", path);
  w->segment_ = last.index;
  w->offset_ = end.offset;
  return w;
}

WalWriter::WalWriter(std::string dir, Uuid node_id, uint16_t node_order, WriterOptions options)
    : dir_(std::move(dir)), node_id_(node_id), node_order_(node_order), options_(options) {
  buf_.reserve(options_.buffer_size + (64 << 10));
}

WalWriter::~WalWriter() {
  if (fd_ >= 0) (void)Close();
}

Result<std::unique_ptr<WalWriter>> WalWriter::Create(const std::string& wal_dir, Uuid node_id, uint16_t node_order,
                                                     WriterOptions options, uint64_t first_segment) {
  if (options.segment_size < kMinSegmentSize || options.segment_size > kMaxSegmentSize) {
    return Status::InvalidArgument(
        fmt::format("segment size {} is outside [{}, {}]", options.segment_size, kMinSegmentSize, kMaxSegmentSize));
  }
  std::error_code ec;
  std::filesystem::create_directories(wal_dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", wal_dir, ec.message()));
  auto existing = ListSegments(wal_dir);
  if (!existing.ok()) return existing.status();
  if (!existing->empty()) {
    return Status::AlreadyExists(fmt::format("\"{}\" already holds WAL segments", wal_dir));
  }
  std::unique_ptr<WalWriter> w(new WalWriter(wal_dir, node_id, node_order, options));
  WAL_RETURN_IF_ERROR(w->OpenSegment(first_segment));
  return w;
}

Status WalWriter::OpenSegment(uint64_t index) {
  path_ = (std::filesystem::path(dir_) / SegmentFileName(index, false)).string();
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) return status_ = Errno("create", path_);
  if (options_.fsync) WAL_RETURN_IF_ERROR(status_ = SyncDirectory(dir_));
  segment_ = index;
  offset_ = 0;
  HeaderRecord h;
  h.magic = kSegmentMagic;
  h.version = kFormatVersion;
  h.segment = index;
  h.node_id = node_id_;
  h.node_order = node_order_;
  size_t size = AppendRecord(h, position(), &buf_);
  bytes_written_ += size;
  ++records_written_;
  return Status::Ok();
}

bool WalWriter::NeedsRoll(size_t frame_size) const {
  uint64_t end = offset_ + buf_.size();  // already includes the new frame
  uint64_t header_end = kFrameOverhead + kHeaderPayloadSize;
  // Leave room for the SWITCH_SEGMENT_RECORD; a record too big for any segment gets a
  // segment of its own rather than a roll that could never help.
  return end + kFrameOverhead > options_.segment_size && end - frame_size > header_end;
}

Result<Pointer> WalWriter::Placed(Pointer at, size_t size) {
  // The segment must keep room for its SWITCH_SEGMENT_RECORD within kMaxSegmentSize.
  if (size - kFrameOverhead > kMaxPayloadSize || offset_ + buf_.size() + kFrameOverhead > kMaxSegmentSize) {
    buf_.resize(buf_.size() - size);
    return Status::InvalidArgument(fmt::format("record of {} bytes is too large", size));
  }
  bytes_written_ += size;
  ++records_written_;
  if (buf_.size() >= options_.buffer_size) WAL_RETURN_IF_ERROR(WriteOut());
  return at;
}

Status WalWriter::WriteOut() {
  if (buf_.empty()) return Status::Ok();
  Status s = WriteAll(fd_, path_, buf_);
  if (!s.ok()) return status_ = s;
  offset_ += buf_.size();
  buf_.clear();
  return Status::Ok();
}

Status WalWriter::Roll() {
  AppendRawFrame(static_cast<uint8_t>(RecordType::kSwitchSegment), {}, position(), &buf_);
  bytes_written_ += kFrameOverhead;
  ++records_written_;
  WAL_RETURN_IF_ERROR(WriteOut());
  if (options_.fsync && ::fsync(fd_) != 0) return status_ = Errno("fsync", path_);
  ::close(fd_);
  fd_ = -1;
  if (options_.compress_sealed) WAL_RETURN_IF_ERROR(status_ = CompressSegmentFile(path_));
  return OpenSegment(segment_ + 1);
}

Status WalWriter::Flush() {
  WAL_RETURN_IF_ERROR(status_);
  return WriteOut();
}

Status WalWriter::Sync() {
  WAL_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0) return status_ = Errno("fsync", path_);
  return Status::Ok();
}

Status WalWriter::Close() {
  if (fd_ < 0) return status_;
  Status s = Flush();
  if (s.ok() && options_.fsync && ::fsync(fd_) != 0) s = Errno("fsync", path_);
  ::close(fd_);
  fd_ = -1;
  if (!s.ok()) status_ = s;
  return s;
}

Status WalWriter::CloseTorn(uint32_t drop_bytes) {
  WAL_RETURN_IF_ERROR(Flush());
  uint64_t keep = offset_ > drop_bytes ? offset_ - drop_bytes : 0;
  if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0) return status_ = Errno("truncate", path_);
  ::close(fd_);
  fd_ = -1;
  status_ = Status::NotSupported("writer closed by a simulated crash");
  return Status::Ok();
}

}  // namespace wal
