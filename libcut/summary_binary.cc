#include "libcut/summary_binary.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <lz4.h>
#include <xxhash.h>

#include "libcut/hash.h"
#include "libcut/json_doc.h"
#include "libcut/kept_increments.h"
#include "libcut/summary_file.h"
#include "libcut/varint_codec.h"
#include "libwal/format.h"

namespace cut::binary_summary {
namespace {

// File: the magic, u32 schema, u32 flags (0); then frames. Frame: u8 kind, u8 codec,
// u16 zero, u32 stored size, u32 raw size, u64 checksum (XXH3-64 of the stored bytes,
// seeded with the XXH3-64 of the header's first 12 bytes); then the stored bytes.
constexpr size_t kFileHeader = 16;
constexpr size_t kFrameHeader = 20;
constexpr uint8_t kNodeFrame = 1;
constexpr uint8_t kCutFrame = 2;
constexpr uint8_t kStateFrame = 3;
constexpr uint8_t kStored = 0;
constexpr uint8_t kLz4 = 1;
// A frame's bytes once decompressed: at most this, and at most LZ4's greatest ratio
// times its stored size.
constexpr uint64_t kMaxRaw = 1ull << 30;
constexpr uint64_t kMaxRatio = 255;

// The node frame's kept-increments block (schema 3): none (not an Apache Ignite node), a
// node without metadata, a node with metadata.
constexpr uint64_t kKeptNone = 0, kKeptAbsent = 1, kKeptRead = 2;

// Cut flags.
constexpr uint64_t kHasStart = 1, kHasFinish = 2, kHasUnverifiable = 4;

using Out = VarintWriter;
using In = VarintReader;

// Transaction ids as deltas: of the topology version and the near node from the
// previous id, and of the order from the previous id of the same near node (a near
// node's orders grow as its transactions begin).
class TxCoder {
 public:
  void Put(Out& o, const wal::TxId& x) {
    o.Z(static_cast<int64_t>(x.topology_version) - static_cast<int64_t>(tv_));
    o.Z(static_cast<int64_t>(x.node_order) - static_cast<int64_t>(node_));
    uint64_t& last = Last(x.node_order);
    o.Z(static_cast<int64_t>(x.order - last));
    tv_ = x.topology_version;
    node_ = x.node_order;
    last = x.order;
  }
  wal::TxId Get(In& in) {
    wal::TxId x;
    x.topology_version = Narrow(in, static_cast<int64_t>(tv_) + in.Z(), "a topology version");
    x.node_order = Narrow(in, static_cast<int64_t>(node_) + in.Z(), "a node order");
    uint64_t& last = Last(x.node_order);
    x.order = last + static_cast<uint64_t>(in.Z());
    tv_ = x.topology_version;
    node_ = x.node_order;
    last = x.order;
    return x;
  }

 private:
  static constexpr uint32_t kTracked = 1u << 16;
  static uint32_t Narrow(In& in, int64_t v, const char* what) {
    if (v >= 0 && v <= UINT32_MAX) return static_cast<uint32_t>(v);
    in.Fail(fmt::format("{} out of range in a transaction id", what));
    return 0;
  }
  uint64_t& Last(uint32_t node) {
    if (node >= kTracked) return untracked_ = 0;
    if (node >= last_.size()) last_.resize(node + 1, 0);
    return last_[node];
  }
  uint32_t tv_ = 0;
  uint32_t node_ = 0;
  std::vector<uint64_t> last_;
  uint64_t untracked_ = 0;
};

// Pointers in WAL order as deltas: of the segment, then of the offset in the same
// segment, or the offset itself in another.
class PtrCoder {
 public:
  void Put(Out& o, const wal::Pointer& p) {
    o.Z(static_cast<int64_t>(p.segment - last_.segment));
    if (p.segment == last_.segment) {
      o.Z(static_cast<int64_t>(p.offset) - static_cast<int64_t>(last_.offset));
    } else {
      o.U(p.offset);
    }
    last_ = p;
  }
  wal::Pointer Get(In& in) {
    wal::Pointer p;
    p.segment = last_.segment + static_cast<uint64_t>(in.Z());
    if (p.segment == last_.segment) {
      const int64_t off = static_cast<int64_t>(last_.offset) + in.Z();
      if (off < 0 || off > UINT32_MAX) in.Fail("an offset out of range");
      p.offset = in.ok() ? static_cast<uint32_t>(off) : 0;
    } else {
      p.offset = static_cast<uint32_t>(in.U(UINT32_MAX, "an offset"));
    }
    last_ = p;
    return p;
  }

 private:
  wal::Pointer last_;
};

void PutTxList(Out& o, const std::vector<wal::TxId>& v) {
  o.U(v.size());
  TxCoder c;
  for (const auto& x : v) c.Put(o, x);
}

std::vector<wal::TxId> GetTxList(In& in, const char* what) {
  std::vector<wal::TxId> v(in.Count(what, 3));
  TxCoder c;
  for (auto& x : v) x = c.Get(in);
  return v;
}

// The transactions a cut's window shares with the previous cut's: the previous list
// from `from` on, `count` of them, the same ids at the same commits.
struct Shared {
  size_t from = 0;
  size_t count = 0;
};

Shared FindShared(const std::vector<TxSide>& prev, const std::vector<TxSide>& cur) {
  Shared s;
  if (prev.empty() || cur.empty()) return s;
  const auto it = std::lower_bound(prev.begin(), prev.end(), cur[0].commit(),
                                   [](const TxSide& t, const wal::Pointer& p) { return t.commit() < p; });
  size_t from = static_cast<size_t>(it - prev.begin());
  size_t n = 0;
  while (from + n < prev.size() && n < cur.size() && prev[from + n].xid == cur[n].xid &&
         prev[from + n].commit() == cur[n].commit()) {
    ++n;
  }
  if (n > 0) s = {from, n};
  return s;
}

// The node frame's fields; the cuts' count and latest Start timestamp are given (they
// cover cuts copied from an earlier file as well as those of `n`).
void PutKept(Out& o, const NodeKept* k) {
  if (k == nullptr) {
    o.U(kKeptNone);
    return;
  }
  o.U(k->has_metadata ? kKeptRead : kKeptAbsent);
  o.Str(k->consistent_id);
  o.U(k->baseline.size());
  for (const auto& b : k->baseline) o.Str(b);
  o.U(k->unreadable.size());
  for (const auto& u : k->unreadable) o.Str(u);
  o.U(k->kept.size());
  for (const auto& i : k->kept) {
    o.Id(i.cut);
    o.Str(i.snapshot);
    o.U(i.index);
    o.U(i.finish ? 1 : 0);
    if (i.finish) o.Ptr(*i.finish);
    o.Str(i.path);
  }
}

std::optional<NodeKept> GetKept(In& in, const std::string& node) {
  const uint64_t state = in.U(kKeptRead, "the kept increments' state");
  if (state == kKeptNone) return std::nullopt;
  NodeKept k;
  k.node = node;
  k.has_metadata = state == kKeptRead;
  k.consistent_id = in.Str(1 << 10, "consistent id");
  k.baseline.resize(in.Count("baseline nodes"));
  if (k.baseline.size() > kMaxKeptIncrements) in.Fail(fmt::format("{} baseline nodes", k.baseline.size()));
  for (auto& b : k.baseline) b = in.Str(1 << 10, "a baseline node");
  k.unreadable.resize(in.Count("unreadable metadata"));
  for (auto& u : k.unreadable) u = in.Str(1 << 16, "unreadable metadata");
  k.kept.resize(in.Count("kept increments", 20));
  if (k.kept.size() > kMaxKeptIncrements) in.Fail(fmt::format("{} kept increments", k.kept.size()));
  for (auto& i : k.kept) {
    i.cut = in.Id();
    i.snapshot = in.Str(wal::kMaxSnapshotNameSize, "snapshot name");
    i.index = static_cast<uint32_t>(in.U(UINT32_MAX, "an increment's index"));
    if (in.U(1, "a flag") == 1) i.finish = in.Ptr();
    i.path = in.Str(1 << 12, "a metadata file's path");
  }
  if (!in.ok()) return std::nullopt;
  return k;
}

std::string EncodeNode(const NodeIndex& n, uint64_t cuts, uint64_t last_start, const NodeKept* kept) {
  Out o;
  o.Str(n.node);
  o.Id(n.node_id);
  o.U(n.order);
  o.Ptr(n.begin);
  o.Ptr(n.end);
  o.U(n.records);
  o.U(n.last_ts);
  o.U(last_start);
  o.Str(n.torn_tail);
  o.U(n.read_errors.size());
  for (const auto& e : n.read_errors) o.Str(e);
  PutSnapshots(o, n.snapshots);
  o.U(cuts);
  PutKept(o, kept);
  return std::move(o.s);
}

std::string EncodeCut(const CutOnNode& c, const std::vector<TxSide>& prev) {
  Out o;
  o.Id(c.id);
  o.U((c.has_start ? kHasStart : 0) | (c.has_finish ? kHasFinish : 0) | (c.unverifiable ? kHasUnverifiable : 0));
  if (c.has_start) o.Ptr(c.start);
  if (c.has_finish) o.Ptr(c.finish);
  o.U(c.topology_version);
  o.U(c.start_ts);
  o.U(c.finish_ts);
  o.Str(c.base);
  PutTxList(o, c.before);
  PutTxList(o, c.after);
  const Shared shared = FindShared(prev, c.txs);
  o.U(c.txs.size());
  o.U(shared.count);
  if (shared.count > 0) o.U(shared.from);
  TxCoder xids;
  PtrCoder commits;
  size_t next = 0;  // in c.participants, which follows the order of c.txs
  for (size_t k = 0; k < c.txs.size(); ++k) {
    const TxSide& t = c.txs[k];
    if (k >= shared.count) {
      xids.Put(o, t.xid);
      commits.Put(o, t.commit());
    }
    while (next < c.participants.size() && c.participants[next].tx < k) ++next;
    const std::span<const uint16_t> nodes = next < c.participants.size() && c.participants[next].tx == k
                                                ? NodesOf(c, c.participants[next])
                                                : std::span<const uint16_t>();
    o.U(nodes.size() << 1 | (t.side == Side::kAfter ? 1 : 0));
    int64_t last = 0;
    for (const uint16_t node : nodes) {
      o.Z(static_cast<int64_t>(node) - last);
      last = node;
    }
  }
  o.U(c.problems.size());
  TxCoder problem_xids;
  for (const auto& p : c.problems) {
    o.U(static_cast<uint64_t>(p.kind));
    o.U(p.xid.IsNull() ? 0 : 1);
    if (!p.xid.IsNull()) problem_xids.Put(o, p.xid);
    o.Ptr(p.at);
    o.Str(p.detail);
  }
  if (c.unverifiable) o.Str(*c.unverifiable);
  PutAppliedCounters(o, c.applied);
  return std::move(o.s);
}

void PutFrame(std::string* file, uint8_t kind, const std::string& raw) {
  std::string stored(static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))), '\0');
  const int n =
      LZ4_compress_default(raw.data(), stored.data(), static_cast<int>(raw.size()), static_cast<int>(stored.size()));
  uint8_t codec = kLz4;
  if (n <= 0 || static_cast<size_t>(n) >= raw.size()) {
    codec = kStored;
    stored = raw;
  } else {
    stored.resize(static_cast<size_t>(n));
  }
  std::string h;
  h.push_back(static_cast<char>(kind));
  h.push_back(static_cast<char>(codec));
  wal::PutFixed16(&h, 0);
  wal::PutFixed32(&h, static_cast<uint32_t>(stored.size()));
  wal::PutFixed32(&h, static_cast<uint32_t>(raw.size()));
  wal::PutFixed64(&h, XXH3_64bits_withSeed(stored.data(), stored.size(), XXH3_64bits(h.data(), h.size())));
  file->append(h);
  file->append(stored);
}

// `applied`: the frame carries the applied counters (schema 3, and states).
void DecodeCut(In& in, const std::vector<TxSide>& prev, bool strict, bool applied, CutOnNode* out) {
  CutOnNode& c = *out;
  c = CutOnNode();
  c.id = in.Id();
  const uint64_t flags = in.U();
  if ((flags & ~(kHasStart | kHasFinish | kHasUnverifiable)) != 0)
    return in.Fail(fmt::format("unknown flags {:#x}", flags));
  c.has_start = (flags & kHasStart) != 0;
  c.has_finish = (flags & kHasFinish) != 0;
  if (!c.has_start && !c.has_finish) return in.Fail("neither a Start nor a Finish record");
  if (c.has_start) c.start = in.Ptr();
  if (c.has_finish) c.finish = in.Ptr();
  c.topology_version = static_cast<uint32_t>(in.U(UINT32_MAX, "topology version"));
  c.start_ts = in.U();
  c.finish_ts = in.U();
  c.base = in.Str(wal::kMaxSnapshotNameSize, "base");
  c.before = GetTxList(in, "before");
  c.after = GetTxList(in, "after");
  const size_t n = in.Count("transactions");
  const uint64_t shared = in.U(n, "transactions shared with the previous cut");
  const uint64_t from = shared > 0 ? in.U() : 0;
  if (shared > 0 && (from > prev.size() || shared > prev.size() - from)) {
    return in.Fail(fmt::format("{} transactions from position {} of the previous cut's {}", shared, from, prev.size()));
  }
  c.txs.reserve(n);
  c.txs.insert(c.txs.end(), prev.begin() + static_cast<ptrdiff_t>(from),
               prev.begin() + static_cast<ptrdiff_t>(from + shared));  // their sides follow
  TxCoder xids;
  PtrCoder commits;
  for (size_t k = 0; k < n; ++k) {
    if (k >= shared) {
      TxSide fresh;
      fresh.xid = xids.Get(in);
      fresh.set_commit(commits.Get(in));
      c.txs.push_back(fresh);
    }
    TxSide& t = c.txs[k];
    const uint64_t sp = in.U();
    t.side = (sp & 1) != 0 ? Side::kAfter : Side::kBefore;
    const uint64_t count = sp >> 1;
    if (count == 0) continue;
    if (count > 65535 || count > in.left()) return in.Fail(fmt::format("transaction {}: {} participants", k, count));
    c.participants.push_back(
        {static_cast<uint32_t>(k), static_cast<uint32_t>(c.participant_nodes.size()), static_cast<uint32_t>(count)});
    int64_t last = 0;
    for (uint64_t i = 0; i < count; ++i) {
      last += in.Z();
      if (last < 0 || last > 65535) return in.Fail(fmt::format("transaction {}: a participant out of range", k));
      c.participant_nodes.push_back(static_cast<uint16_t>(last));
    }
  }
  const size_t problems = in.Count("problems", 4);
  TxCoder problem_xids;
  for (size_t k = 0; k < problems; ++k) {
    LocalProblem p;
    const uint64_t kind = in.U(255, "problem kind");
    if (!IsLocalKind(static_cast<Kind>(kind)) || !ParseKind(KindName(static_cast<Kind>(kind)))) {
      return in.Fail(fmt::format("problem {}: kind {} is not one a node's WAL shows", k, kind));
    }
    p.kind = static_cast<Kind>(kind);
    if (in.U(1, "problem flag") == 1) p.xid = problem_xids.Get(in);
    p.at = in.Ptr();
    p.detail = in.Str(1 << 16, "problem detail");
    c.problems.push_back(std::move(p));
  }
  if ((flags & kHasUnverifiable) != 0) c.unverifiable = in.Str(1 << 16, "unverifiable");
  if (applied) c.applied = GetAppliedCounters(in);
  if (strict && c.has_start && c.has_finish && c.finish < c.start &&
      std::none_of(c.problems.begin(), c.problems.end(),
                   [](const LocalProblem& p) { return p.kind == Kind::kFinishBeforeStart; })) {
    in.Fail("its Finish record precedes its Start record, and no problem says so");
  }
}

// Where the bytes of a summary come from: memory, or a file read a frame at a time.
class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Exactly `n` bytes at `offset` into `out` (the caller has checked they exist).
  virtual wal::Status Read(uint64_t offset, size_t n, std::string* out) = 0;
};

class MemorySource : public Source {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  wal::Status Read(uint64_t offset, size_t n, std::string* out) override {
    out->assign(bytes_.substr(offset, n));
    return wal::Status::Ok();
  }

 private:
  std::string_view bytes_;
};

class FileSource : public Source {
 public:
  FileSource(int fd, uint64_t size, std::string origin) : fd_(fd), size_(size), origin_(std::move(origin)) {}
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  wal::Status Read(uint64_t offset, size_t n, std::string* out) override {
    out->resize(n);
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, out->data() + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return wal::Status::IoError(fmt::format("\"{}\": {}", origin_, std::strerror(errno)));
      if (got == 0)
        return wal::Status::Truncated(
            fmt::format("\"{}\": ends at offset {} (the file shrank)", origin_, offset + done));
      done += static_cast<size_t>(got);
    }
    return wal::Status::Ok();
  }

 private:
  int fd_;
  uint64_t size_;
  std::string origin_;
};

class BinaryStream : public SummaryStream {
 public:
  BinaryStream(std::unique_ptr<Source> source, std::string origin, const char* noun = "summary")
      : source_(std::move(source)), origin_(std::move(origin)), noun_(noun) {}

  // A resume-state file (NodeIndexStream checkpoints): its header, then its one frame.
  wal::Status ReadStateFile(std::string* raw) {
    if (source_->size() > kMaxSummaryBytes) return Stop(Damage(0, "larger than 1 GiB", false));
    if (source_->size() < kFileHeader) return Stop(Damage(0, "shorter than its header", true));
    std::string h;
    if (auto s = source_->Read(0, kFileHeader, &h); !s.ok()) return Stop(s);
    if (std::memcmp(h.data(), kStateMagic, sizeof kStateMagic) != 0 ||
        wal::DecodeFixed32(h.data() + 8) != kStateSchema || wal::DecodeFixed32(h.data() + 12) != 0) {
      return Stop(Damage(0, fmt::format("not a walcut resume state of schema {}", kStateSchema), false));
    }
    offset_ = kFileHeader;
    if (!ReadFrame(kStateFrame, "the state")) return status_;
    if (offset_ != source_->size()) return Stop(Damage(offset_, "bytes after its frame", false));
    *raw = std::move(raw_);
    return wal::Status::Ok();
  }

  wal::Status Begin() {
    if (source_->size() > kMaxSummaryBytes) {
      return Stop(wal::Status::Corruption(fmt::format("\"{}\": {} bytes, more than a summary may have ({})", origin_,
                                                      source_->size(), kMaxSummaryBytes)));
    }
    if (source_->size() < kFileHeader) return Stop(Damage(0, "shorter than its header", true));
    std::string h;
    if (auto s = source_->Read(0, kFileHeader, &h); !s.ok()) return Stop(s);
    if (!LooksBinary(h)) return Stop(Damage(0, "not a walcut node summary", false));
    schema_ = wal::DecodeFixed32(h.data() + 8);
    if ((schema_ != kSchema && schema_ != kFirstSchema) || wal::DecodeFixed32(h.data() + 12) != 0) {
      return Stop(wal::Status::Corruption(fmt::format(
          "\"{}\": a walcut node summary of schema {}, which this walcut does not read (it reads {} and {})", origin_,
          schema_, kFirstSchema, kSchema)));
    }
    offset_ = kFileHeader;
    if (!ReadFrame(kNodeFrame, "the node's frame")) return status_;
    {
      In in(raw_.data(), raw_.size());
      NodeIndex& n = node_;
      n.node = in.Str(255, "node");
      if (in.ok() && !IsSafeName(n.node)) in.Fail(fmt::format("\"{}\" cannot be a node name", n.node));
      n.node_id = in.Id();
      n.order = static_cast<uint16_t>(in.U(65535, "node order"));
      n.begin = in.Ptr();
      n.end = in.Ptr();
      n.records = in.U();
      n.last_ts = in.U();
      last_start_ts_ = in.U();
      n.torn_tail = in.Str(1 << 16, "torn tail");
      n.read_errors.resize(in.Count("read errors"));
      for (auto& e : n.read_errors) e = in.Str(1 << 16, "read error");
      n.snapshots = GetSnapshots(in);
      cuts_ = in.U();
      if (schema_ >= 3) kept_ = GetKept(in, n.node);
      if (in.left() != 0) in.Fail(fmt::format("{} bytes after its fields", in.left()));
      if (!in.ok()) return Stop(Damage(frame_at_, fmt::format("the node's frame: {}", in.error()), false));
    }
    return wal::Status::Ok();
  }

  const NodeIndex& node() const override { return node_; }
  const std::optional<NodeKept>& kept() const override { return kept_; }
  bool carries_ignite_parts() const override { return schema_ >= 3; }
  uint64_t last_start_ts() const override { return last_start_ts_; }
  const wal::Status& status() const override { return status_; }

  bool Next(CutOnNode* out) override {
    if (!status_.ok() || done_) return false;
    if (read_ == cuts_) {
      done_ = true;
      if (offset_ != source_->size()) {
        Fail(Damage(offset_, fmt::format("{} bytes after its last cut ({} cuts)", source_->size() - offset_, cuts_),
                    false));
      }
      return false;
    }
    const std::string what = fmt::format("cut {} of {}", read_ + 1, cuts_);
    if (!ReadFrame(kCutFrame, what)) return false;
    {
      In in(raw_.data(), raw_.size());
      DecodeCut(in, prev_, true, schema_ >= 3, out);
      if (in.left() != 0) in.Fail(fmt::format("{} bytes after its fields", in.left()));
      if (in.ok() && !ids_.insert(out->id).second) in.Fail(fmt::format("cut {} is given twice", out->id.ToString()));
      if (!in.ok()) {
        Fail(Damage(frame_at_, fmt::format("{}: {}", what, in.error()), false));
        return false;
      }
    }
    ++read_;
    prev_.assign(out->txs.begin(), out->txs.end());
    return true;
  }

 private:
  void Fail(wal::Status s) { status_ = std::move(s); }
  // Begin()'s failure.
  wal::Status Stop(wal::Status s) {
    status_ = std::move(s);
    return status_;
  }
  wal::Status Damage(uint64_t at, const std::string& what, bool truncated) const {
    std::string m = fmt::format("\"{}\": not a valid {}: at offset {}: {}", origin_, noun_, at, what);
    return truncated ? wal::Status::Truncated(std::move(m)) : wal::Status::Corruption(std::move(m));
  }

  // The frame at offset_, of kind `kind`, into raw_.
  bool ReadFrame(uint8_t kind, const std::string& what) {
    frame_at_ = offset_;
    const uint64_t left = source_->size() - offset_;
    if (left < kFrameHeader) {
      Fail(Damage(offset_, fmt::format("cut short before {}", what), true));
      return false;
    }
    std::string h;
    if (auto s = source_->Read(offset_, kFrameHeader, &h); !s.ok()) {
      Fail(s);
      return false;
    }
    const uint8_t k = static_cast<uint8_t>(h[0]);
    const uint8_t codec = static_cast<uint8_t>(h[1]);
    const uint64_t stored = wal::DecodeFixed32(h.data() + 4);
    const uint64_t raw = wal::DecodeFixed32(h.data() + 8);
    std::string bad;
    if (k != kind) {
      bad = fmt::format("a frame of kind {} where {} (kind {}) belongs", k, what, kind);
    } else if (codec != kStored && codec != kLz4) {
      bad = fmt::format("{}: unknown codec {}", what, codec);
    } else if (wal::DecodeFixed16(h.data() + 2) != 0) {
      bad = fmt::format("{}: reserved header bytes are not zero", what);
    } else if (raw > kMaxRaw || (codec == kStored ? raw != stored : raw > stored * kMaxRatio + 16)) {
      bad = fmt::format("{}: {} bytes, from {} stored, are impossible", what, raw, stored);
    }
    if (!bad.empty()) {
      Fail(Damage(offset_, bad, false));
      return false;
    }
    if (stored > left - kFrameHeader) {
      Fail(Damage(offset_, fmt::format("cut short inside {} ({} of its {} bytes)", what, left - kFrameHeader, stored),
                  true));
      return false;
    }
    if (auto s = source_->Read(offset_ + kFrameHeader, static_cast<size_t>(stored), &stored_); !s.ok()) {
      Fail(s);
      return false;
    }
    const uint64_t sum = XXH3_64bits_withSeed(stored_.data(), stored_.size(), XXH3_64bits(h.data(), 12));
    if (sum != wal::DecodeFixed64(h.data() + 12) && !SummaryChecksumsSkipped()) {
      Fail(Damage(offset_, fmt::format("{}: checksum mismatch", what), false));
      return false;
    }
    if (codec == kStored) {
      raw_.swap(stored_);
    } else {
      raw_.resize(static_cast<size_t>(raw));
      const int n = LZ4_decompress_safe(stored_.data(), raw_.data(), static_cast<int>(stored), static_cast<int>(raw));
      if (n < 0 || static_cast<uint64_t>(n) != raw) {
        Fail(Damage(offset_, fmt::format("{}: its LZ4 block does not decompress to its {} bytes", what, raw), false));
        return false;
      }
    }
    offset_ += kFrameHeader + stored;
    return true;
  }

  std::unique_ptr<Source> source_;
  std::string origin_;
  const char* noun_;
  wal::Status status_;
  NodeIndex node_;
  std::optional<NodeKept> kept_;
  uint32_t schema_ = 0;
  uint64_t last_start_ts_ = 0;
  uint64_t cuts_ = 0;
  uint64_t read_ = 0;
  uint64_t offset_ = 0;
  uint64_t frame_at_ = 0;
  bool done_ = false;
  std::string stored_, raw_;
  std::vector<TxSide> prev_;
  std::unordered_set<wal::Uuid, wal::UuidHash> ids_;
};

}  // namespace

bool LooksBinary(std::string_view bytes) {
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

uint64_t LastStartTs(const std::vector<CutOnNode>& cuts) {
  uint64_t last = 0;
  for (const auto& c : cuts) {
    if (c.has_start) last = std::max(last, c.start_ts);
  }
  return last;
}

std::string Encode(const NodeIndex& n, const NodeKept* metadata) { return EncodeAfter(n, {}, 0, 0, nullptr, metadata); }

std::string EncodeAfter(const NodeIndex& n, std::string_view frames, uint64_t kept, uint64_t kept_last_start,
                        const CutOnNode* last_kept, const NodeKept* metadata) {
  std::string file(kMagic, sizeof kMagic);
  wal::PutFixed32(&file, kSchema);
  wal::PutFixed32(&file, 0);
  PutFrame(&file, kNodeFrame,
           EncodeNode(n, kept + n.cuts.size(), std::max(kept_last_start, LastStartTs(n.cuts)), metadata));
  file.append(frames);
  const std::vector<TxSide> none;
  for (size_t i = 0; i < n.cuts.size(); ++i) {
    const std::vector<TxSide>& prev = i > 0 ? n.cuts[i - 1].txs : last_kept != nullptr ? last_kept->txs : none;
    PutFrame(&file, kCutFrame, EncodeCut(n.cuts[i], prev));
  }
  return file;
}

wal::Result<std::string_view> CutFrames(std::string_view file, uint64_t count, const std::string& origin) {
  auto bad = [&](uint64_t at, const char* what) {
    return wal::Status::Corruption(fmt::format("\"{}\": not a valid summary: at offset {}: {}", origin, at, what));
  };
  if (!LooksBinary(file) || file.size() < kFileHeader) return bad(0, "not a binary summary");
  if (wal::DecodeFixed32(file.data() + 8) != kSchema)
    return bad(8, "a schema whose cut frames this walcut does not write");
  uint64_t at = kFileHeader;
  uint64_t begin = 0;
  for (uint64_t k = 0; k <= count; ++k) {  // the node's frame, then `count` cut frames
    if (file.size() - at < kFrameHeader) return bad(at, "cut short");
    if (static_cast<uint8_t>(file[at]) != (k == 0 ? kNodeFrame : kCutFrame)) return bad(at, "a frame of another kind");
    const uint64_t stored = wal::DecodeFixed32(file.data() + at + 4);
    if (stored > file.size() - at - kFrameHeader) return bad(at, "cut short");
    at += kFrameHeader + stored;
    if (k == 0) begin = at;
  }
  return file.substr(begin, at - begin);
}

wal::Result<NodeIndex> Decode(std::string_view bytes, const std::string& origin, std::optional<NodeKept>* kept,
                              bool* parts) {
  BinaryStream s(std::make_unique<MemorySource>(bytes), origin);
  if (auto st = s.Begin(); !st.ok()) return st;
  NodeIndex n = s.node();
  if (kept != nullptr) *kept = s.kept();
  if (parts != nullptr) *parts = s.carries_ignite_parts();
  CutOnNode c;
  while (s.Next(&c)) n.cuts.push_back(std::move(c));
  if (!s.status().ok()) return s.status();
  return n;
}

void PutSnapshots(VarintWriter& o, const std::vector<BaseSnapshot>& v) {
  o.U(v.size());
  for (const auto& s : v) {
    o.Str(s.name);
    o.Ptr(s.at);
    o.U(s.timestamp);
  }
}

std::vector<BaseSnapshot> GetSnapshots(VarintReader& in) {
  std::vector<BaseSnapshot> v(in.Count("snapshots", 3));
  for (auto& s : v) {
    s.name = in.Str(wal::kMaxSnapshotNameSize, "snapshot name");
    s.at = in.Ptr();
    s.timestamp = in.U();
  }
  return v;
}

void PutCut(VarintWriter& o, const CutOnNode& c) { o.Str(EncodeCut(c, {})); }

CutOnNode GetCut(VarintReader& in) {
  const std::string bytes = in.Str(kMaxRaw, "a cut");
  In cut_in(bytes.data(), bytes.size());
  CutOnNode c;
  DecodeCut(cut_in, {}, false, true, &c);
  if (cut_in.left() != 0) cut_in.Fail("bytes after a cut's fields");
  if (!cut_in.ok()) in.Fail(cut_in.error());
  return c;
}

std::string EncodeStateFile(const std::string& raw) {
  std::string file(kStateMagic, sizeof kStateMagic);
  wal::PutFixed32(&file, kStateSchema);
  wal::PutFixed32(&file, 0);
  PutFrame(&file, kStateFrame, raw);
  return file;
}

wal::Result<std::string> DecodeStateFile(std::string_view bytes, const std::string& origin) {
  BinaryStream s(std::make_unique<MemorySource>(bytes), origin, "resume state");
  std::string raw;
  if (auto st = s.ReadStateFile(&raw); !st.ok()) return st;
  return raw;
}

wal::Result<std::unique_ptr<SummaryStream>> OpenFile(int fd, uint64_t size, const std::string& origin) {
  auto s = std::make_unique<BinaryStream>(std::make_unique<FileSource>(fd, size, origin), origin);
  if (auto st = s->Begin(); !st.ok()) return st;
  return std::unique_ptr<SummaryStream>(std::move(s));
}

}  // namespace cut::binary_summary
