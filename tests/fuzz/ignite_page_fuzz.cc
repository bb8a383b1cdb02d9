// libFuzzer target: arbitrary bytes as what walcut reads of Apache Ignite's page stores,
// chosen by the first byte: a partition file (part-0.bin) of a cache of its own or of a
// shared cache group, index.bin, one row's bytes (whole or assembled from fragments) with
// Ignite's hashes of its key and value, a cache's stored configuration (cache_data.dat,
// Java serialization) and a cache object's text (keys and values, binary objects among
// them). Each reader must return a value or report damage, never crash, hang, read
// outside its input or allocate beyond its size; every row given is one the file holds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "libwal/cache_object.h"
#include "libwal/ignite_page.h"
#include "libwal/ignite_partition_file.h"
#include "libwal/ignite_snapshot.h"
#include "recovery/ignite_hash.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 6) {
    case 0:
    case 1:
    case 2: {
      const bool index = data[0] % 6 == 2;
      auto f = wal::IgnitePartitionFile::FromBytes(index ? "index.bin" : "part-0.bin", bytes);
      if (!f.ok()) break;
      wal::IgnitePartitionFile::Reading how;
      how.shared_group = data[0] % 6 == 1;
      wal::IgnitePartitionFile::Outcome out;
      uint64_t rows = 0, row_bytes = 0;
      (void)f->ReadRows(
          how,
          [&](const wal::PartitionRow& r) {
            ++rows;
            row_bytes += r.row.key.size() + r.row.value.size();
            if (r.pages == 0 || r.pages > f->pages()) __builtin_trap();
            recovery::IgnitePartitionHash h;
            h.Add(r.row);
          },
          &out);
      // Every row's head is an entry of a data page: rows are at most the file's bytes.
      if (row_bytes > bytes.size() || rows > bytes.size()) __builtin_trap();
      break;
    }
    case 3: {
      wal::ignite_page::Row r;
      std::string why;
      if (wal::ignite_page::ParseRow(bytes, (data[0] / 6) % 2 == 1, &r, &why)) {
        int32_t h = 0;
        (void)recovery::IgniteKeyHash(r.key_type, r.key, &h);
        (void)recovery::IgniteValueHash(r.value_type, r.value);
        if (r.key.size() + r.value.size() > bytes.size()) __builtin_trap();
      }
      break;
    }
    case 4: {
      auto c = wal::ParseIgniteCacheData(bytes);
      if (c.ok() && c->name.size() > bytes.size()) __builtin_trap();
      break;
    }
    default: {
      if (bytes.empty()) break;
      const std::string text = wal::CacheObjectText(static_cast<int8_t>(bytes[0]), std::string_view(bytes).substr(1));
      (void)wal::CacheObjectClass(static_cast<int8_t>(bytes[0]), std::string_view(bytes).substr(1));
      // Hex at most doubles the bytes, with a few dozen bytes of decoration per field.
      if (text.size() > 64 + 40 * bytes.size()) __builtin_trap();
      break;
    }
  }
  return 0;
}
