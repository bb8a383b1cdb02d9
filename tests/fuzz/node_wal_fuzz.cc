// libFuzzer target: whole node WALs through the cut index, the cluster check and the
// gap scan. The input is a list of records, each `u8 node | u8 type | u16 length |
// payload`, framed here with sound checksums (so the decoders and what follows them see
// every input, not only the rare ones whose checksum a mutation kept), written as the
// WALs of up to three nodes (a segment rolled every 64 records), and read back from
// disk. Nothing may crash, hang or allocate far beyond the input.
//
// Seeds: with WALCUT_FUZZ_SEED_FROM=CLUSTER_DIR and WALCUT_FUZZ_SEED_TO=CORPUS_DIR in the
// environment, the records of a cluster directory's node WALs are written as inputs.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "libcut/cluster_check.h"
#include "libcut/cut_index.h"
#include "libwal/coding.h"
#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/wal_reader.h"
#include "recovery/gaps.h"

namespace {

namespace fs = std::filesystem;

constexpr size_t kNodes = 3;
constexpr size_t kRecordsPerSegment = 64;

struct NodeWal {
  std::vector<std::string> segments;
  size_t in_segment = 0;
};

void Begin(NodeWal& w, size_t node) {
  wal::HeaderRecord h;
  h.magic = wal::kSegmentMagic;
  h.version = wal::kFormatVersion;
  h.segment = w.segments.size();
  h.node_id = wal::Uuid{0xF0221, node + 1};
  h.node_order = static_cast<uint16_t>(node + 1);
  std::string s;
  wal::AppendRecord(h, wal::Pointer{h.segment, 0}, &s);
  w.segments.push_back(std::move(s));
  w.in_segment = 0;
}

void Add(NodeWal& w, size_t node, uint8_t type, std::string_view payload) {
  if (w.segments.empty()) Begin(w, node);
  if (w.in_segment == kRecordsPerSegment) {
    std::string& s = w.segments.back();
    wal::AppendRawFrame(static_cast<uint8_t>(wal::RecordType::kSwitchSegment), {},
                        wal::Pointer{w.segments.size() - 1, static_cast<uint32_t>(s.size())}, &s);
    Begin(w, node);
  }
  std::string& s = w.segments.back();
  wal::AppendRawFrame(type, payload, wal::Pointer{w.segments.size() - 1, static_cast<uint32_t>(s.size())}, &s);
  ++w.in_segment;
}

void WriteSeeds(const char* from, const char* to) {
  fs::create_directories(to);
  int seed = 0;
  std::string input;
  for (size_t n = 0; n < kNodes; ++n) {
    auto reader = wal::WalReader::OpenDirectory(fmt::format("{}/node-{}/wal", from, n), {}, nullptr);
    if (!reader.ok()) continue;
    const wal::Record* r = nullptr;
    while ((*reader)->Next(&r)) {
      if (r->type == static_cast<uint8_t>(wal::RecordType::kHeader) ||
          r->type == static_cast<uint8_t>(wal::RecordType::kSwitchSegment) || r->payload.size() > 0xFFFF) {
        continue;
      }
      input.push_back(static_cast<char>(n));
      input.push_back(static_cast<char>(r->type));
      wal::PutFixed16(&input, static_cast<uint16_t>(r->payload.size()));
      input.append(r->payload);
      if (input.size() > (16 << 10)) {
        std::ofstream(fmt::format("{}/wal-{:03}", to, seed++), std::ios::binary) << input;
        input.clear();
      }
    }
  }
  if (!input.empty()) std::ofstream(fmt::format("{}/wal-{:03}", to, seed++), std::ios::binary) << input;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* from = std::getenv("WALCUT_FUZZ_SEED_FROM");
  const char* to = std::getenv("WALCUT_FUZZ_SEED_TO");
  if (from != nullptr && to != nullptr) WriteSeeds(from, to);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<NodeWal> wals(kNodes);
  size_t at = 0;
  while (at + 4 <= size) {
    const size_t node = data[at] % kNodes;
    const uint8_t type = data[at + 1];
    const size_t len = std::min<size_t>(data[at + 2] | size_t{data[at + 3]} << 8, size - at - 4);
    Add(wals[node], node, type, std::string_view(reinterpret_cast<const char*>(data + at + 4), len));
    at += 4 + len;
  }
  char tmpl[] = "/tmp/walcut-fuzz-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 0;
  const std::string dir = tmpl;
  std::vector<cut::NodeIndex> indexes;
  for (size_t n = 0; n < kNodes; ++n) {
    if (wals[n].segments.empty()) continue;
    const std::string wal_dir = fmt::format("{}/node-{}/wal", dir, n);
    fs::create_directories(wal_dir);
    for (size_t k = 0; k < wals[n].segments.size(); ++k) {
      std::ofstream(fmt::format("{}/{:016}.wal", wal_dir, k), std::ios::binary) << wals[n].segments[k];
    }
    auto index = cut::BuildNodeIndex(fmt::format("node-{}", n), wal_dir);
    if (index.ok()) indexes.push_back(std::move(index).value());
    auto gaps = recovery::ScanGaps(fmt::format("node-{}", n), wal_dir);
    (void)gaps;
  }
  cut::ClusterReport report = cut::CheckCluster(indexes);
  size_t sum = report.cuts.size() + report.problems.size();
  for (const auto& c : report.cuts) sum += c.violations.size();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return static_cast<int>(sum & 0);
}
