// libFuzzer target: the append path. The input is the tail of a node's last segment, after
// a sound header and a few sound records: `gaps --close` opens the WAL for appending
// (saving and cutting a torn tail), appends a record and closes. Either the WAL is
// refused (damaged) or afterwards it reads back with no error, every record that read
// before still there, the new one after them, and the tail's bytes saved beside it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/wal_reader.h"
#include "libwal/wal_writer.h"

namespace {

namespace fs = std::filesystem;

size_t CountRecords(const std::string& wal_dir, size_t* errors) {
  *errors = 0;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, [&](const wal::Issue& i) { *errors += i.IsError(); });
  if (!reader.ok()) return 0;
  const wal::Record* r = nullptr;
  size_t n = 0;
  while ((*reader)->Next(&r)) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string seg;
  wal::HeaderRecord h{wal::kSegmentMagic, wal::kFormatVersion, 0, wal::Uuid{7, 7}, 1};
  wal::AppendRecord(h, wal::Pointer{0, 0}, &seg);
  for (int i = 0; i < 3; ++i) {
    wal::AppendRecord(wal::RollbackRecord{1, static_cast<uint32_t>(i), 10, 2},
                      wal::Pointer{0, static_cast<uint32_t>(seg.size())}, &seg);
  }
  seg.append(reinterpret_cast<const char*>(data), size);
  char tmpl[] = "/tmp/walcut-append-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 0;
  const std::string wal_dir = std::string(tmpl) + "/wal";
  fs::create_directories(wal_dir);
  std::ofstream(wal_dir + "/0000000000000000.wal", std::ios::binary) << seg;
  size_t errors_before = 0;
  const size_t before = CountRecords(wal_dir, &errors_before);
  auto w = wal::WalWriter::OpenForAppend(wal_dir, wal::WriterOptions{});
  if (w.ok()) {
    if (errors_before != 0) __builtin_trap();  // appending to a damaged WAL buries the damage
    if (!(*w)->Append(wal::RollbackRecord{9, 9, 1, 1}).ok() || !(*w)->Close().ok()) __builtin_trap();
    size_t errors_after = 0;
    const size_t after = CountRecords(wal_dir, &errors_after);
    // One record more, or two when the last segment was sealed (a new segment, its header).
    if (errors_after != 0 || after < before + 1 || after > before + 2) __builtin_trap();
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return 0;
}
