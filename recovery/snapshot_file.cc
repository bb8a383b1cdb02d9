#include "recovery/snapshot_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libcut/json_doc.h"
#include "libwal/file_io.h"

namespace recovery {

std::string EncodeSnapshotFile(const SnapshotMeta& meta) {
  nlohmann::ordered_json doc;
  doc["schema"] = 1;
  doc["name"] = meta.name;
  doc["node"] = meta.node;
  doc["pointer"] = meta.pointer.ToString();
  doc["topology_version"] = meta.topology_version;
  doc["timestamp"] = meta.timestamp;
  return cut::SealJson(std::move(doc));
}

wal::Result<SnapshotMeta> ReadSnapshotFile(const std::string& dir) {
  const std::string path = dir + "/" + kSnapshotFileName;
  auto text = wal::ReadFileToString(path, 1 << 20);
  if (!text.ok()) return text.status();
  return ParseSnapshotFile(*text, path);
}

wal::Result<SnapshotMeta> ParseSnapshotFile(std::string_view text, const std::string& path) {
  auto doc = cut::ParseJson(text, path);
  if (!doc.ok()) return doc.status();
  WAL_RETURN_IF_ERROR(cut::CheckJsonSeal(&*doc, path));
  cut::JsonErrors errors;
  cut::JsonObject o(*doc, "", &errors);
  SnapshotMeta m;
  if (o.Uint("schema") != 1) {
    o.Fail("schema: not 1");
  } else {
    m.name = o.String("name", 255);
    if (!cut::IsSafeName(m.name)) o.Fail(fmt::format("name: \"{}\" cannot be a snapshot name", m.name));
    m.node = o.String("node", 255);
    m.pointer = o.Pointer("pointer");
    m.topology_version = static_cast<uint32_t>(o.Uint("topology_version", UINT32_MAX));
    m.timestamp = o.Uint("timestamp");
  }
  if (!errors.ok()) return wal::Status::Corruption(fmt::format("\"{}\": {}", path, errors.first()));
  return m;
}

}  // namespace recovery
