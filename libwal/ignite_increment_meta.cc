#include "libwal/ignite_increment_meta.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "libwal/file_io.h"
#include "libwal/ignite_format.h"
#include "libwal/java_stream.h"
#include "libwal/parse_once.h"
#include "libwal/printable.h"

namespace wal {
namespace fs = std::filesystem;

namespace {

using java::FieldOf;
using java::JavaStream;
using java::Object;
using java::Value;

}  // namespace

std::string IgniteFolderOf(std::string_view consistent_id) {
  std::string out(consistent_id);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return out;
}

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
  if (const Value* p = FieldOf(o, "incSnpRec"); p != nullptr && p->kind == Value::kObject) {
    const Value* seg = FieldOf(s.object(p->object), "idx");
    const Value* off = FieldOf(s.object(p->object), "fileOff");
    if (seg == nullptr || off == nullptr || seg->kind != Value::kPrimitive || off->kind != Value::kPrimitive) {
      return Status::Corruption("incSnpRec is no WAL pointer");
    }
    m.finish = Pointer{seg->bits, static_cast<uint32_t>(off->bits)};
  }
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
  auto bytes = ReadFileToString(smf.string(), ignite::kMaxSmfBytes);
  if (!bytes.ok()) {
    out->unreadable.push_back(bytes.status().message());
    return;
  }
  auto meta = ParseOnce<IgniteSnapshotMeta, ParseIgniteSnapshotMeta>(*bytes);
  if (!meta.ok()) {
    out->unreadable.push_back(fmt::format("{}: {}", smf.string(), meta.status().message()));
    return;
  }
  if (meta->folder != folder) {
    out->unreadable.push_back(
        fmt::format("{}: the metadata of node folder {}, not {}", smf.string(), meta->folder, folder));
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
    auto bytes = ReadFileToString(path, ignite::kMaxSmfBytes);
    if (!bytes.ok()) {
      out->unreadable.push_back(bytes.status().message());
      continue;
    }
    auto meta = ParseOnce<IgniteIncrementMeta, ParseIgniteIncrementMeta>(*bytes);
    if (!meta.ok()) {
      out->unreadable.push_back(fmt::format("{}: {}", path, meta.status().message()));
      continue;
    }
    const fs::path snapshot = fs::absolute(smf).lexically_normal().parent_path().parent_path().parent_path();
    const uint64_t index = std::stoull(smf.parent_path().filename().string());
    if (meta->snapshot != IgniteSnapshotNameOf(snapshot.string(), folder) || meta->index != index ||
        meta->folder != folder) {
      out->unreadable.push_back(fmt::format("{}: names increment {} of snapshot '{}' on {}, not what its path says",
                                            path, meta->index, Printable(meta->snapshot), Printable(meta->folder)));
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

std::string IgniteSnapshotNameOf(const std::string& dir, const std::string& folder) {
  std::error_code ec;
  const fs::path smf = fs::path(dir) / (folder + ".smf");
  if (fs::exists(smf, ec)) {
    if (auto bytes = ReadFileToString(smf.string(), ignite::kMaxSmfBytes); bytes.ok()) {
      if (auto meta = ParseOnce<IgniteSnapshotMeta, ParseIgniteSnapshotMeta>(*bytes); meta.ok()) return meta->snapshot;
    }
  }
  return fs::path(dir).filename().string();
}

}  // namespace wal
