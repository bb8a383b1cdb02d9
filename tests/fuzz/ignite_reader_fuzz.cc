// libFuzzer target: arbitrary bytes as one or two Apache Ignite segments (Ignite's
// header magic first, so the reader takes Ignite's framing) read through WalReader, in
// full and in light mode; the same bytes as a TX and a DATA payload through Ignite's
// decoder, whose light views must accept exactly what it accepts, and as the physical
// records of a partition's meta page (its update counter); and as a cache object
// of every type through its text, and as Ignite binary metadata (a .bin file) that then
// names the bytes read as a binary object. Any crash, out-of-range read, leak, hang or huge
// allocation is a bug. Seeds: real segments and .wal.zip entries (./bootstrap test).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libwal/binary_meta.h"
#include "libwal/cache_object.h"
#include "libwal/ignite_frame.h"
#include "libwal/ignite_record.h"
#include "libwal/wal_reader.h"

namespace {

// Reads files and adds up what came out (so that nothing is optimized away).
uint64_t ReadEverything(std::vector<wal::SegmentFile> files, wal::ReaderOptions options) {
  uint64_t sum = 0;
  auto reader =
      wal::WalReader::OpenFiles(std::move(files), options, [&](const wal::Issue& i) { sum += i.ToString().size(); });
  const wal::Record* r = nullptr;
  while (reader->Next(&r)) {
    sum += r->size + r->payload.size();
    if (options.light && r->type == 70) {
      wal::DataEntryCursor c(r->data);
      wal::DataEntry e;
      while (c.Next(&e)) sum += e.key.size();
    }
    if (options.light && r->type == 0) r->tx.ForEachParticipantNode([&](uint16_t n) { sum += n; });
  }
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  // Bit 16: the bytes are a whole file (a seed); otherwise an Ignite header is put first.
  if ((mode & 16) == 0) bytes = wal::IgniteHeader(0, (mode & 32) != 0, (mode & 64) != 0 ? 1 : 2) + bytes;
  std::vector<wal::SegmentFile> files;
  auto add = [&](uint64_t index, std::string part) {
    wal::SegmentFile f;
    f.index = index;
    f.path = "fuzz";
    f.memory = std::make_shared<const std::string>(std::move(part));
    files.push_back(std::move(f));
  };
  add(0, bytes);
  if (mode & 1) add(1, wal::IgniteHeader(1, false) + std::string(1, '\x29'));
  wal::ReaderOptions options;
  options.verify_checksums = (mode & 2) == 0;  // without checksums the decoders see it all
  options.resync = (mode & 4) == 0;
  options.light = (mode & 8) != 0;
  if ((mode & 128) != 0 && size >= 3) {  // reading from a record's pointer given from elsewhere
    options.from = wal::Pointer{0, static_cast<uint32_t>(data[1] | data[2] << 8)};
    options.from_is_record = true;
  }
  uint64_t sum = ReadEverything(files, options);
  // The light views accept exactly what the decoder accepts (the bytes as one payload).
  std::string_view payload(reinterpret_cast<const char*>(data + 1), size - 1);
  wal::AnyRecord decoded;
  wal::TxView tx;
  wal::DataView view;
  if (wal::ViewIgniteTx(payload, &tx) != wal::DecodeIgnitePayload(0, payload, &decoded).ok()) __builtin_trap();
  if (wal::ViewIgniteData(payload, &view) != wal::DecodeIgnitePayload(70, payload, &decoded).ok()) __builtin_trap();
  for (uint8_t type : {3, 57, 75, 76, 77}) sum += wal::DecodeIgnitePayload(type, payload, &decoded).ok();
  // And as each physical record whose partition counter `gaps` reads.
  for (uint8_t type : {1, 31, 43, 58, 67}) sum += wal::ReadIgnitePartitionCounter(type, payload).lwm;
  for (int8_t type : {1, 2, 100, 101, -3}) sum += wal::CacheObjectText(type, payload).size();
  // The bytes as binary metadata (a .bin file) and, when they read as such, the bytes as
  // a binary object named by it.
  wal::BinaryTypes types;
  int32_t type_id = 0;
  wal::BinaryType t;
  if (wal::BinaryTypes::Parse(payload, &type_id, &t).ok()) types.Add(type_id, std::move(t));
  for (int8_t type : {1, 100}) sum += wal::CacheObjectText(type, payload, &types).size();
  return static_cast<int>(sum & 0);
}
