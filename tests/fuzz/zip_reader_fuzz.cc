// libFuzzer target: arbitrary bytes as a .wal.zip (Apache Ignite's compacted segment)
// read in place through WalReader, and through the zip entry stream alone, in steps of
// a size the input chooses. Any crash, out-of-range read, leak, hang or huge allocation
// is a bug. Seeds: real .wal.zip files (./bootstrap test).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libwal/wal_reader.h"
#include "libwal/zip_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t step = 1 + data[0] * 97u;
  auto zip = std::make_shared<const std::string>(reinterpret_cast<const char*>(data + 1), size - 1);
  uint64_t sum = 0;
  wal::SegmentFile f;
  f.index = 0;
  f.path = "fuzz.wal.zip";
  f.zip = true;
  f.memory = zip;
  auto reader = wal::WalReader::OpenFiles({f}, {}, [&](const wal::Issue& i) { sum += i.ToString().size(); });
  const wal::Record* r = nullptr;
  while (reader->Next(&r)) sum += r->size;
  auto stream = wal::ZipEntryStream::Open(*zip);
  if (stream.ok()) {
    std::string out(step, '\0');
    bool done = false;
    std::string damage;
    uint64_t total = 0;
    // A deflate stream expands at most about 1032 times: anything past that is a bug.
    while (!done && total <= 1100 * uint64_t{zip->size()} + step)
      total += (*stream)->Read(out.data(), step, &done, &damage);
    if (!done) __builtin_trap();
    sum += total + damage.size();
  }
  // The first local entry alone, as a listing looks at a file's start.
  if (auto first = wal::ZipEntryStream::OpenFirstLocal(*zip); first.ok()) {
    std::string head(29, '\0');
    bool done = false;
    std::string damage;
    size_t got = 0;
    for (int i = 0; i < 64 && !done && got < head.size(); ++i)
      got += (*first)->Read(head.data() + got, head.size() - got, &done, &damage);
    sum += got;
  }
  // Inflated whole, the entry is exactly what its stream gives, or nothing.
  auto whole = wal::ZipEntryStream::Open(*zip);
  auto streamed = wal::ZipEntryStream::Open(*zip);
  if (whole.ok() && streamed.ok() && (*whole)->info().size <= (16u << 20)) {
    std::string a(static_cast<size_t>((*whole)->info().size), '\0');
    size_t n = 0;
    if ((*whole)->ReadWhole(a.data(), a.size(), &n)) {
      std::string b(a.size() + 1, '\0');
      bool done = false;
      std::string damage;
      size_t got = 0;
      while (!done && got < b.size()) got += (*streamed)->Read(b.data() + got, b.size() - got, &done, &damage);
      if (n != a.size() || got != n || !damage.empty() || !(*streamed)->mismatch().empty() ||
          std::string_view(a).substr(0, n) != std::string_view(b).substr(0, got)) {
        __builtin_trap();
      }
    }
  }
  return static_cast<int>(sum & 0);
}
