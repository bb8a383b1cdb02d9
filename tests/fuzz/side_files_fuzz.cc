// libFuzzer target: arbitrary bytes as each of the side files walcut reads, chosen by the
// first byte: cluster.json, snapshot.json, restore.json, a node summary, a partition data
// file, Apache Ignite's snapshot and increment metadata (.smf), a summary's resume state.
// Each reader must return a value or a Status, never crash, hang, or allocate beyond the
// input's size; a value must survive its own writer and reader again.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libcut/cluster_file.h"
#include "libcut/summary_file.h"
#include "libwal/ignite_increment_meta.h"
#include "recovery/manifest_file.h"
#include "recovery/partition_file.h"
#include "recovery/snapshot_file.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cut::SkipSummaryChecksumsForFuzzing();  // a fuzzer cannot make a checksum
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0: {
      auto c = cut::ParseClusterFile(text, "cluster.json");
      if (c.ok() && !cut::ParseClusterFile(cut::EncodeClusterFile(*c), "again").ok()) __builtin_trap();
      break;
    }
    case 1: {
      auto s = recovery::ParseSnapshotFile(text, "snapshot.json");
      if (s.ok() && !recovery::ParseSnapshotFile(recovery::EncodeSnapshotFile(*s), "again").ok()) __builtin_trap();
      break;
    }
    case 2: {
      auto m = recovery::ParseManifest(text, "restore.json");
      if (m.ok() && !recovery::ParseManifest(recovery::EncodeManifest(*m), "again").ok()) __builtin_trap();
      break;
    }
    case 3: {
      std::optional<cut::NodeKept> kept;
      auto n = cut::DecodeSummary(text, "summary", &kept);
      // Either encoding (binary when the bytes begin with its magic; its checksums are taken
      // as right here: LLVMFuzzerInitialize), and a value, with an Apache Ignite node's kept
      // increments and applied counters, survives both writers.
      const cut::NodeKept* k = kept ? &*kept : nullptr;
      if (n.ok() && !cut::DecodeSummary(cut::EncodeSummary(*n, cut::SummaryFormat::kBinary, k), "again").ok())
        __builtin_trap();
      if (n.ok() && !cut::DecodeSummary(cut::EncodeSummary(*n, cut::SummaryFormat::kJson, k), "json").ok())
        __builtin_trap();
      break;
    }
    case 6: {
      // A summary's resume state (cuts --summary FILE --append), loaded into a reading
      // that then finds no WAL.
      auto c = cut::DecodeResumeState(text, "", "state");
      if (c.ok()) {
        auto s = cut::NodeIndexStream::Resume("n", wal::WalLocation("/nonexistent-walcut-fuzz"), c->checkpoint);
        if (s.ok()) __builtin_trap();
      }
      break;
    }
    case 5: {
      auto m = wal::ParseIgniteIncrementMeta(text);
      if (m.ok() && m->snapshot.size() > text.size()) __builtin_trap();
      auto full = wal::ParseIgniteSnapshotMeta(text);
      if (full.ok() && full->baseline.size() > text.size()) __builtin_trap();
      break;
    }
    default: {
      auto f = recovery::DecodePartitionFile(text);
      if (f.ok() && !(recovery::DecodePartitionFile(recovery::EncodePartitionFile(*f)).value() == *f)) __builtin_trap();
      break;
    }
  }
  return 0;
}
