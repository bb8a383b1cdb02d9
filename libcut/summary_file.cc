#include "libcut/summary_file.h"

#include <atomic>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <tuple>

#include "libcut/hash.h"
#include "libcut/summary_binary.h"
#include "libcut/varint_codec.h"
#include "libwal/file_io.h"

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "libcut/json_doc.h"
#include "libwal/format.h"

namespace cut {

// The JSON summary's "kind".
constexpr std::string_view kSummaryKind = "walcut-node-summary";
// 2: a node's "ignite_increments" and each cut's "applied" (1 is read, without them).
constexpr uint64_t kJsonSchema = 2;
namespace {

using Json = nlohmann::ordered_json;

Json TxList(const std::vector<wal::TxId>& v) {
  Json a = Json::array();
  for (const auto& t : v) a.push_back(t.ToString());
  return a;
}

Json AppliedJson(const AppliedCounters& a) {
  if (!a.known) return nullptr;
  Json copies = Json::array();
  for (const auto& c : a.copies) {
    Json ranges = Json::array();
    for (const auto& [lo, hi] : c.counters) ranges.push_back(Json::array({lo, hi}));
    copies.push_back(Json::array({c.cache, c.partition, ranges}));
  }
  Json window = Json::array();
  for (const auto& u : a.window) window.push_back(Json::array({u.cache, u.partition, u.counter, u.xid.ToString()}));
  return {{"copies", copies}, {"window", window}};
}

Json KeptJson(const NodeKept* k) {
  if (k == nullptr) return nullptr;
  Json kept = Json::array();
  for (const auto& i : k->kept) {
    kept.push_back({{"cut", i.cut.ToString()},
                    {"snapshot", i.snapshot},
                    {"index", i.index},
                    {"finish", i.finish ? Json(i.finish->ToString()) : Json(nullptr)},
                    {"path", i.path}});
  }
  return {{"metadata", k->has_metadata},
          {"consistent_id", k->consistent_id},
          {"baseline", k->baseline},
          {"unreadable", k->unreadable},
          {"kept", kept}};
}

}  // namespace

std::string EncodeSummary(const NodeIndex& n, SummaryFormat format, const NodeKept* kept) {
  if (format == SummaryFormat::kBinary) return binary_summary::Encode(n, kept);
  Json j;
  j["schema"] = kJsonSchema;
  j["kind"] = kSummaryKind;
  j["node"] = n.node;
  j["node_id"] = n.node_id.ToString();
  j["order"] = n.order;
  j["end"] = n.end.ToString();
  j["records"] = n.records;
  j["begin"] = n.begin.ToString();
  j["last_ts"] = n.last_ts;
  j["read_errors"] = n.read_errors;
  if (!n.torn_tail.empty()) j["torn_tail"] = n.torn_tail;
  Json snaps = Json::array();
  for (const auto& s : n.snapshots)
    snaps.push_back({{"name", s.name}, {"at", s.at.ToString()}, {"timestamp", s.timestamp}});
  j["snapshots"] = snaps;
  j["ignite_increments"] = KeptJson(kept);
  Json cuts = Json::array();
  for (const auto& c : n.cuts) {
    Json cj;
    cj["id"] = c.id.ToString();
    cj["start"] = c.has_start ? Json(c.start.ToString()) : Json(nullptr);
    cj["finish"] = c.has_finish ? Json(c.finish.ToString()) : Json(nullptr);
    cj["topology_version"] = c.topology_version;
    cj["start_ts"] = c.start_ts;
    cj["finish_ts"] = c.finish_ts;
    cj["base"] = c.base;
    cj["before"] = TxList(c.before);
    cj["after"] = TxList(c.after);
    Json txs = Json::array();
    size_t next = 0;  // in c.participants, which follows the order of c.txs
    for (size_t k = 0; k < c.txs.size(); ++k) {
      const auto& t = c.txs[k];
      std::vector<uint16_t> nodes;
      while (next < c.participants.size() && c.participants[next].tx < k) ++next;
      if (next < c.participants.size() && c.participants[next].tx == k) {
        const auto of = NodesOf(c, c.participants[next]);
        nodes.assign(of.begin(), of.end());
      }
      txs.push_back(Json::array({t.xid.ToString(), t.side == Side::kBefore ? "B" : "A", t.commit().ToString(), nodes}));
    }
    cj["txs"] = txs;
    Json probs = Json::array();
    for (const auto& p : c.problems) {
      probs.push_back({{"kind", KindName(p.kind)},
                       {"tx", p.xid.IsNull() ? Json(nullptr) : Json(p.xid.ToString())},
                       {"at", p.at.ToString()},
                       {"detail", p.detail}});
    }
    cj["problems"] = probs;
    cj["unverifiable"] = c.unverifiable ? Json(*c.unverifiable) : Json(nullptr);
    cj["applied"] = AppliedJson(c.applied);
    cuts.push_back(cj);
  }
  j["cuts"] = cuts;
  // Names and paths are bytes, not always UTF-8: replace what JSON cannot carry.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

Side ParseSide(const nlohmann::json& j, const std::string& where, JsonErrors* errors) {
  const std::string s = JsonString(j, where, errors, 1);
  if (s == "B") return Side::kBefore;
  if (s == "A") return Side::kAfter;
  errors->Fail(fmt::format("{}: \"{}\", expected \"B\" or \"A\"", where, s));
  return Side::kBefore;
}

wal::Pointer ParsePointer(const nlohmann::json& j, const std::string& where, JsonErrors* errors) {
  auto p = wal::Pointer::Parse(JsonString(j, where, errors, 64));
  if (!p) {
    errors->Fail(fmt::format("{}: not a pointer SEG:OFF", where));
    return {};
  }
  return *p;
}

wal::TxId ParseTxId(const nlohmann::json& j, const std::string& where, JsonErrors* errors) {
  auto t = wal::TxId::Parse(JsonString(j, where, errors, 64));
  if (!t) {
    errors->Fail(fmt::format("{}: not a transaction id T.N.O", where));
    return {};
  }
  return *t;
}

std::vector<wal::TxId> ParseTxList(const JsonObject& o, const char* key) {
  std::vector<wal::TxId> out;
  const auto& a = o.Array(key);
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    out.push_back(ParseTxId(a[i], fmt::format("{}[{}]", o.Where(key), i), o.errors()));
  }
  return out;
}

// A cut's "applied" (schema 2): null, or its copies in (cache, partition) order, each
// with sorted ranges apart from each other, and its window's updates.
AppliedCounters ParseApplied(const JsonObject& o) {
  AppliedCounters a;
  if (o.At("applied").is_null()) return a;
  const JsonObject j = o.Object("applied");
  a.known = true;
  const auto& copies = j.Array("copies");
  for (size_t k = 0; k < copies.size(); ++k) {
    const std::string where = fmt::format("{}[{}]", j.Where("copies"), k);
    const auto& c = copies[k];
    if (!c.is_array() || c.size() != 3 || !c[2].is_array()) {
      o.Fail(where + ": expected [cache, partition, [[first, last], ...]]");
      return a;
    }
    CopyCounters cc;
    cc.cache = static_cast<uint32_t>(JsonUint(c[0], where, UINT32_MAX, o.errors()));
    cc.partition = static_cast<uint32_t>(JsonUint(c[1], where, UINT32_MAX, o.errors()));
    if (!a.copies.empty() &&
        std::tie(cc.cache, cc.partition) <= std::tie(a.copies.back().cache, a.copies.back().partition)) {
      o.Fail(where + ": copies out of (cache, partition) order");
      return a;
    }
    for (const auto& r : c[2]) {
      if (!r.is_array() || r.size() != 2) {
        o.Fail(where + ": a range is not [first, last]");
        return a;
      }
      const uint64_t lo = JsonUint(r[0], where, UINT64_MAX, o.errors());
      const uint64_t hi = JsonUint(r[1], where, UINT64_MAX, o.errors());
      if (hi < lo ||
          (!cc.counters.empty() && (lo <= cc.counters.back().second || lo - cc.counters.back().second < 2))) {
        o.Fail(where + ": ranges out of order, overlapping or touching");
        return a;
      }
      cc.counters.emplace_back(lo, hi);
    }
    a.copies.push_back(std::move(cc));
  }
  const auto& window = j.Array("window");
  for (size_t k = 0; k < window.size(); ++k) {
    const std::string where = fmt::format("{}[{}]", j.Where("window"), k);
    const auto& u = window[k];
    if (!u.is_array() || u.size() != 4) {
      o.Fail(where + ": expected [cache, partition, counter, tx]");
      return a;
    }
    a.window.push_back({static_cast<uint32_t>(JsonUint(u[0], where, UINT32_MAX, o.errors())),
                        static_cast<uint32_t>(JsonUint(u[1], where, UINT32_MAX, o.errors())),
                        JsonUint(u[2], where, UINT64_MAX, o.errors()), ParseTxId(u[3], where, o.errors())});
  }
  return a;
}

std::optional<NodeKept> ParseKept(const JsonObject& j, const std::string& node) {
  if (!j.Has("ignite_increments") || j.At("ignite_increments").is_null()) return std::nullopt;
  const JsonObject o = j.Object("ignite_increments");
  NodeKept k;
  k.node = node;
  k.has_metadata = o.Bool("metadata");
  k.consistent_id = o.String("consistent_id", 1 << 10);
  const auto& baseline = o.Array("baseline", kMaxKeptIncrements);
  for (size_t i = 0; i < baseline.size(); ++i)
    k.baseline.push_back(JsonString(baseline[i], fmt::format("{}[{}]", o.Where("baseline"), i), o.errors(), 1 << 10));
  const auto& unreadable = o.Array("unreadable");
  for (size_t i = 0; i < unreadable.size(); ++i) {
    k.unreadable.push_back(
        JsonString(unreadable[i], fmt::format("{}[{}]", o.Where("unreadable"), i), o.errors(), 1 << 16));
  }
  const auto& kept = o.Array("kept", kMaxKeptIncrements);
  for (size_t i = 0; i < kept.size(); ++i) {
    const JsonObject e = o.Element(kept[i], fmt::format("{}[{}]", o.Where("kept"), i));
    KeptIncrement inc;
    inc.cut = e.Uuid("cut");
    inc.snapshot = e.String("snapshot", wal::kMaxSnapshotNameSize);
    inc.index = static_cast<uint32_t>(e.Uint("index", UINT32_MAX));
    if (!e.At("finish").is_null()) inc.finish = e.Pointer("finish");
    inc.path = e.String("path", 1 << 12);
    k.kept.push_back(std::move(inc));
  }
  return k;
}

CutOnNode ParseCut(const JsonObject& o, uint64_t schema) {
  CutOnNode c;
  c.id = o.Uuid("id");
  c.has_start = !o.At("start").is_null();
  if (c.has_start) c.start = o.Pointer("start");
  c.has_finish = !o.At("finish").is_null();
  if (c.has_finish) c.finish = o.Pointer("finish");
  c.topology_version = static_cast<uint32_t>(o.Uint("topology_version", UINT32_MAX));
  c.start_ts = o.Uint("start_ts");
  c.finish_ts = o.Uint("finish_ts");
  c.base = o.String("base", wal::kMaxSnapshotNameSize);
  c.before = ParseTxList(o, "before");
  c.after = ParseTxList(o, "after");
  const auto& txs = o.Array("txs");
  c.txs.reserve(txs.size());
  for (size_t k = 0; k < txs.size(); ++k) {
    const std::string where = fmt::format("{}[{}]", o.Where("txs"), k);
    const auto& t = txs[k];
    if (!t.is_array() || t.size() != 4) {
      o.Fail(where + ": expected [tx, side, commit, participants]");
      return c;
    }
    TxSide s;
    s.xid = ParseTxId(t[0], where, o.errors());
    s.side = ParseSide(t[1], where, o.errors());
    s.set_commit(ParsePointer(t[2], where, o.errors()));
    if (!t[3].is_array() || t[3].size() > 65535) {
      o.Fail(where + ": participants: expected an array");
      return c;
    }
    std::vector<uint16_t> nodes;
    for (const auto& n : t[3]) {
      nodes.push_back(static_cast<uint16_t>(JsonUint(n, where + ": participants", 65535, o.errors())));
    }
    AddParticipants(c, static_cast<uint32_t>(c.txs.size()), nodes);
    c.txs.push_back(s);
  }
  const auto& problems = o.Array("problems");
  for (size_t k = 0; k < problems.size(); ++k) {
    JsonObject p = o.Element(problems[k], fmt::format("{}[{}]", o.Where("problems"), k));
    LocalProblem lp;
    const std::string kind = p.String("kind", 64);
    const std::optional<Kind> parsed = ParseKind(kind);
    if (!parsed || !IsLocalKind(*parsed)) {
      p.Fail(fmt::format("{}: not a kind of problem a node's WAL shows: \"{}\"", p.Where("kind"), kind));
      return c;
    }
    lp.kind = *parsed;
    if (!p.At("tx").is_null()) lp.xid = p.TxId("tx");
    lp.at = p.Pointer("at");
    lp.detail = p.String("detail", 1 << 16);
    c.problems.push_back(std::move(lp));
  }
  if (!o.At("unverifiable").is_null()) c.unverifiable = o.String("unverifiable", 1 << 16);
  if (schema >= 2) c.applied = ParseApplied(o);
  // Shapes a node's reading never gives.
  if (!c.has_start && !c.has_finish) o.Fail(fmt::format("{}: neither a Start nor a Finish record", o.Where("id")));
  return c;
}

NodeIndex ParseSummary(const nlohmann::json& doc, JsonErrors* errors, std::optional<NodeKept>* kept, bool* parts) {
  JsonObject j(doc, "", errors);
  NodeIndex n;
  const uint64_t schema = j.Has("schema") ? j.Uint("schema") : 0;
  if (j.String("kind", 64) != kSummaryKind || schema < 1 || schema > kJsonSchema) {
    j.Fail(fmt::format("not a walcut node summary (schema 1 to {})", kJsonSchema));
    return n;
  }
  if (parts != nullptr) *parts = schema >= 2;
  n.node = j.String("node", 255);
  if (!IsSafeName(n.node)) j.Fail(fmt::format("node: \"{}\" cannot be a node name", n.node));
  n.node_id = j.Uuid("node_id");
  n.order = static_cast<uint16_t>(j.Uint("order", 65535));
  n.end = j.Pointer("end");
  n.records = j.Uint("records");
  // Absent from the summaries of earlier versions: unknown, so never "before" anything.
  n.begin = j.Has("begin") ? j.Pointer("begin") : wal::Pointer{};
  n.last_ts = j.Has("last_ts") ? j.Uint("last_ts") : UINT64_MAX;
  const auto& read_errors = j.Array("read_errors");
  for (size_t i = 0; i < read_errors.size(); ++i)
    n.read_errors.push_back(JsonString(read_errors[i], fmt::format("read_errors[{}]", i), errors, 1 << 16));
  const auto& snaps = j.Array("snapshots");
  for (size_t i = 0; i < snaps.size(); ++i) {
    JsonObject s = j.Element(snaps[i], fmt::format("snapshots[{}]", i));
    n.snapshots.push_back({s.String("name", wal::kMaxSnapshotNameSize), s.Pointer("at"), s.Uint("timestamp")});
  }
  std::set<wal::Uuid> ids;
  const auto& cuts = j.Array("cuts");
  for (size_t i = 0; i < cuts.size(); ++i) {
    const std::string where = fmt::format("cuts[{}]", i);
    CutOnNode c = ParseCut(j.Element(cuts[i], where), schema);
    if (!errors->ok()) return n;
    if (!ids.insert(c.id).second) j.Fail(fmt::format("{}: cut {} is listed twice", where, c.id.ToString()));
    if (c.has_start && c.has_finish && c.finish < c.start &&
        std::none_of(c.problems.begin(), c.problems.end(),
                     [](const LocalProblem& p) { return p.kind == Kind::kFinishBeforeStart; })) {
      j.Fail(fmt::format("{}: its Finish record precedes its Start record, and no problem says so", where));
    }
    n.cuts.push_back(std::move(c));
  }
  if (schema >= 2) {
    std::optional<NodeKept> k = ParseKept(j, n.node);
    if (kept != nullptr) *kept = std::move(k);
  }
  return n;
}

}  // namespace

bool IsBinarySummary(std::string_view bytes) { return binary_summary::LooksBinary(bytes); }

bool LooksLikeSummary(std::string_view head) {
  // EncodeSummary's JSON begins {"schema":2,"kind":...
  return IsBinarySummary(head) || head.find(fmt::format("\"kind\":\"{}\"", kSummaryKind)) != std::string_view::npos;
}

bool LooksLikeResumeState(std::string_view head) {
  return head.starts_with(std::string_view(binary_summary::kStateMagic, sizeof binary_summary::kStateMagic));
}

wal::Result<NodeIndex> DecodeSummary(const std::string& bytes, const std::string& origin, std::optional<NodeKept>* kept,
                                     bool* parts) {
  if (binary_summary::LooksBinary(bytes)) return binary_summary::Decode(bytes, origin, kept, parts);
  auto doc = ParseJson(bytes, origin);
  if (!doc.ok()) return doc.status();
  JsonErrors errors;
  NodeIndex n = ParseSummary(*doc, &errors, kept, parts);
  if (!errors.ok())
    return wal::Status::Corruption(fmt::format("\"{}\": not a valid summary: {}", origin, errors.first()));
  return n;
}

namespace {

// A JSON summary, read whole, handed out a cut at a time.
class JsonStream : public SummaryStream {
 public:
  JsonStream(NodeIndex index, std::optional<NodeKept> kept, bool parts)
      : index_(std::move(index)), kept_(std::move(kept)), parts_(parts) {
    cuts_ = std::move(index_.cuts);
    index_.cuts.clear();
    for (const auto& c : cuts_) {
      if (c.has_start) last_start_ = std::max(last_start_, c.start_ts);
    }
  }
  const NodeIndex& node() const override { return index_; }
  const std::optional<NodeKept>& kept() const override { return kept_; }
  bool carries_ignite_parts() const override { return parts_; }
  uint64_t last_start_ts() const override { return last_start_; }
  bool Next(CutOnNode* out) override {
    if (next_ == cuts_.size()) return false;
    *out = std::move(cuts_[next_++]);
    return true;
  }
  const wal::Status& status() const override { return status_; }

 private:
  NodeIndex index_;
  std::optional<NodeKept> kept_;
  bool parts_;
  std::vector<CutOnNode> cuts_;
  size_t next_ = 0;
  uint64_t last_start_ = 0;
  wal::Status status_;
};

class StreamFeed : public CutFeed {
 public:
  StreamFeed(std::unique_ptr<SummaryStream> s, std::shared_ptr<wal::Status> damage)
      : s_(std::move(s)), damage_(std::move(damage)) {}
  bool Next(CutOnNode* out) override {
    if (s_->Next(out)) return true;
    if (!s_->status().ok() && damage_ != nullptr) *damage_ = s_->status();
    return false;
  }
  NodeIndex Progress() override { return s_->node(); }
  std::vector<BaseSnapshot> Snapshots() override { return s_->node().snapshots; }
  uint64_t LastStartTs() override { return s_->last_start_ts(); }

 private:
  std::unique_ptr<SummaryStream> s_;
  std::shared_ptr<wal::Status> damage_;
};

}  // namespace

wal::Result<std::unique_ptr<SummaryStream>> SummaryStream::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return wal::Status::IoError(fmt::format("\"{}\": {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return wal::Status::IoError(fmt::format("\"{}\": not a regular file", path));
  }
  char magic[sizeof binary_summary::kMagic] = {};
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  if (got == static_cast<ssize_t>(sizeof magic) && binary_summary::LooksBinary(std::string_view(magic, sizeof magic))) {
    return binary_summary::OpenFile(fd, static_cast<uint64_t>(st.st_size), path);
  }
  ::close(fd);
  auto text = wal::ReadFileToString(path, kMaxSummaryBytes);
  if (!text.ok()) return text.status();
  std::optional<NodeKept> kept;
  bool parts = false;
  auto index = DecodeSummary(*text, path, &kept, &parts);
  if (!index.ok()) return index.status();
  return std::unique_ptr<SummaryStream>(std::make_unique<JsonStream>(std::move(index).value(), std::move(kept), parts));
}

std::string EncodeResumeState(const ResumeState& r, const std::string& summary_bytes) {
  const IndexCheckpoint& c = r.checkpoint;
  VarintWriter o;
  o.U(c.resume_index);
  o.U(c.after_index ? 1 : 0);
  o.U(c.after_index.value_or(0));
  o.U(c.cuts_before);
  o.U(c.node_id ? 1 : 0);
  o.Id(c.node_id.value_or(wal::Uuid{}));
  o.Fixed64(XXH3_64bits(summary_bytes.data(), summary_bytes.size()));
  o.Str(c.state);
  o.U(r.kept_last_start);
  o.U(r.last_kept ? 1 : 0);
  if (r.last_kept) binary_summary::PutCut(o, *r.last_kept);
  return binary_summary::EncodeStateFile(o.s);
}

wal::Result<ResumeState> DecodeResumeState(const std::string& bytes, const std::string& summary_bytes,
                                           const std::string& origin) {
  auto raw = binary_summary::DecodeStateFile(bytes, origin);
  if (!raw.ok()) return raw.status();
  ResumeState r;
  IndexCheckpoint& c = r.checkpoint;
  uint64_t hash = 0;
  {
    VarintReader in(raw->data(), raw->size());
    c.resume_index = in.U();
    const bool after = in.U(1, "a flag") == 1;
    const uint64_t after_index = in.U();
    if (after) c.after_index = after_index;
    c.cuts_before = in.U();
    const bool node = in.U(1, "a flag") == 1;
    const wal::Uuid node_id = in.Id();
    if (node) c.node_id = node_id;
    hash = in.Fixed64();
    c.state = in.Str(kMaxSummaryBytes, "the reading's state");
    r.kept_last_start = in.U();
    if (in.U(1, "a flag") == 1) r.last_kept = binary_summary::GetCut(in);
    if (in.left() != 0) in.Fail("bytes after its fields");
    if (!in.ok())
      return wal::Status::Corruption(fmt::format("\"{}\": not a valid resume state: {}", origin, in.error()));
  }
  if (SummaryChecksumsSkipped()) hash = XXH3_64bits(summary_bytes.data(), summary_bytes.size());
  if (hash != XXH3_64bits(summary_bytes.data(), summary_bytes.size())) {
    return wal::Status::InvalidArgument(
        fmt::format("\"{}\" was saved with another summary than the one beside it", origin));
  }
  return r;
}

wal::Result<std::string> EncodeAppended(const std::string& old, const ResumeState& from, const NodeIndex& index,
                                        const std::string& origin, const NodeKept* metadata) {
  const uint64_t kept = from.checkpoint.cuts_before;
  if (binary_summary::LooksBinary(old)) {
    if (kept > 0 && !from.last_kept) return wal::Status::Corruption("the resume state lacks the last cut kept");
    auto frames = binary_summary::CutFrames(old, kept, origin);
    if (!frames.ok()) return frames.status();
    return binary_summary::EncodeAfter(index, *frames, kept, from.kept_last_start,
                                       from.last_kept ? &*from.last_kept : nullptr, metadata);
  }
  auto before = DecodeSummary(old, origin);
  if (!before.ok()) return before.status();
  if (kept > before->cuts.size()) {
    return wal::Status::Corruption(
        fmt::format("\"{}\": {} cuts, and its resume state keeps {}", origin, before->cuts.size(), kept));
  }
  NodeIndex all = index;
  all.cuts.assign(std::make_move_iterator(before->cuts.begin()),
                  std::make_move_iterator(before->cuts.begin() + static_cast<ptrdiff_t>(kept)));
  all.cuts.insert(all.cuts.end(), index.cuts.begin(), index.cuts.end());
  return EncodeSummary(all, SummaryFormat::kJson, metadata);
}

std::unique_ptr<CutFeed> SummaryFeed(std::unique_ptr<SummaryStream> stream, std::shared_ptr<wal::Status> damage) {
  return std::make_unique<StreamFeed>(std::move(stream), std::move(damage));
}

namespace {
std::atomic<bool> g_skip_checksums{false};
}  // namespace

void SkipSummaryChecksumsForFuzzing() { g_skip_checksums = true; }
bool SummaryChecksumsSkipped() { return g_skip_checksums.load(std::memory_order_relaxed); }

}  // namespace cut
