#include "libwal/wal_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "libwal/lz4_codec.h"
#include "libwal/record.h"
#include "libwal/segment_file.h"

namespace wal {
namespace {

Status Errno(const char* what, const std::string& path) {
  return Status::IoError(fmt::format("cannot {} \"{}\": {}", what, path, strerror(errno)));
}

Status WriteAll(int fd, const std::string& path, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open directory", dir);
  int rc = ::fsync(fd);
  int e = errno;
  ::close(fd);
  if (rc != 0) {
    errno = e;
    return Errno("fsync directory", dir);
  }
  return Status::Ok();
}

std::string ParentOf(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view bytes, bool sync) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", tmp);
  Status s = WriteAll(fd, tmp, bytes);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Errno("fsync", tmp);
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = Errno("rename", tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync ? SyncDirectory(ParentOf(path)) : Status::Ok();
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

WalWriter::WalWriter(std::string dir, Uuid node_id, uint16_t node_order, WriterOptions options)
    : dir_(std::move(dir)), node_id_(node_id), node_order_(node_order), options_(options) {
  buf_.reserve(options_.buffer_size + (64 << 10));
}

WalWriter::~WalWriter() {
  if (fd_ >= 0) (void)Close();
}

Result<std::unique_ptr<WalWriter>> WalWriter::Create(const std::string& wal_dir, Uuid node_id,
                                                     uint16_t node_order, WriterOptions options,
                                                     uint64_t first_segment) {
  if (options.segment_size < kMinSegmentSize || options.segment_size > kMaxSegmentSize) {
    return Status::InvalidArgument(fmt::format("segment size {} is outside [{}, {}]",
                                               options.segment_size, kMinSegmentSize,
                                               kMaxSegmentSize));
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
  if (size - kFrameOverhead > kMaxPayloadSize ||
      offset_ + buf_.size() + kFrameOverhead > kMaxSegmentSize) {
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
