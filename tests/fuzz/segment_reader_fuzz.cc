// libFuzzer target: arbitrary bytes as one or two segments (plain or .wal.lz4) read
// through WalReader. Any crash, out-of-range read, leak, hang or huge allocation is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libwal/wal_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  const size_t split = size <= 2 ? 0 : (static_cast<size_t>(data[1]) * (size - 2)) / 255;
  std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  std::vector<wal::SegmentFile> files;
  auto add = [&](uint64_t index, std::string part, bool lz4) {
    wal::SegmentFile f;
    f.index = index;
    f.path = "fuzz";
    f.compressed = lz4;
    f.memory = std::make_shared<const std::string>(std::move(part));
    files.push_back(std::move(f));
  };
  if (mode & 2) {
    add(0, bytes.substr(0, split), (mode & 1) != 0);
    add(1, bytes.substr(split), false);
  } else {
    add(0, bytes, (mode & 1) != 0);
  }
  wal::ReaderOptions options;
  options.verify_checksums = (mode & 4) == 0;  // without checksums the decoders see it all
  options.resync = (mode & 8) == 0;
  uint64_t issues = 0;
  auto reader = wal::WalReader::OpenFiles(std::move(files), options,
                                          [&](const wal::Issue& i) { issues += i.ToString().size(); });
  const wal::Record* r = nullptr;
  uint64_t sum = 0;
  while (reader->Next(&r)) sum += r->size + r->payload.size();
  return static_cast<int>((sum + issues) & 0);
}
