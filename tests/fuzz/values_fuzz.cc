// libFuzzer target: the values of the command line, parsed by the functions the CLI
// parses them with (pointers, transaction ids, cut ids, whole numbers with ranges, sizes,
// fault times, record type names). None may crash, and what one accepts must print back
// to a value it accepts again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "libwal/ids.h"
#include "libwal/record.h"
#include "sim/config.h"
#include "tools/command.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0:
      if (auto p = wal::Pointer::Parse(text); p && wal::Pointer::Parse(p->ToString()) != p) __builtin_trap();
      break;
    case 1:
      if (auto t = wal::TxId::Parse(text); t && wal::TxId::Parse(t->ToString()) != t) __builtin_trap();
      break;
    case 2:
      if (auto u = wal::Uuid::Parse(text); u && wal::Uuid::Parse(u->ToString()) != u) __builtin_trap();
      break;
    case 3: {
      uint64_t v = 0;
      if (tools::ParseWhole(text, 3, 1000, &v) && (v < 3 || v > 1000)) __builtin_trap();
      break;
    }
    case 4: {
      uint64_t v = 0;
      (void)tools::ParseSize(text, &v);
      break;
    }
    case 5: {
      std::string node;
      sim::FaultTime when;
      (void)sim::ParseFaultSpec(text, data[0] & 8 ? nullptr : &node, &when);
      break;
    }
    default: {
      wal::RecordType t;
      if (wal::ParseRecordType(text, &t) && !wal::ParseRecordType(wal::RecordTypeName(static_cast<uint8_t>(t)), &t)) {
        __builtin_trap();
      }
      break;
    }
  }
  return 0;
}
