// libFuzzer target: arbitrary bytes as one or two segments (plain or .wal.lz4) read
// through WalReader, and the same bytes as one TX and one DATA payload through the
// light views, which must accept exactly what the decoder accepts. Any crash,
// out-of-range read, leak, hang or huge allocation is a bug.
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
  auto reader =
      wal::WalReader::OpenFiles(std::move(files), options, [&](const wal::Issue& i) { issues += i.ToString().size(); });
  const wal::Record* r = nullptr;
  uint64_t sum = 0;
  while (reader->Next(&r)) sum += r->size + r->payload.size();
  // The light views accept exactly what the decoder accepts (the bytes as one payload).
  std::string_view payload(bytes);
  wal::AnyRecord decoded;
  wal::TxView tx;
  wal::DataView data_view;
  if (wal::ViewTx(payload, &tx) != wal::DecodePayload(0, payload, &decoded).ok()) __builtin_trap();
  if (wal::ViewData(payload, &data_view) != wal::DecodePayload(70, payload, &decoded).ok()) __builtin_trap();
  if (wal::ViewData(payload, &data_view)) {
    wal::DataEntryCursor cursor(data_view);
    wal::DataEntry e;
    size_t n = 0;
    while (cursor.Next(&e)) n += e.key.size() + e.value.size() + 1;
    sum += n;
  }
  return static_cast<int>((sum + issues) & 0);
}
