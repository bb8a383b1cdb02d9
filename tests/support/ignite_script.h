// Apache Ignite WALs written from a script, for tests of what a real Ignite seldom or
// never writes: one node, its segments in DIR/work/db/wal/FOLDER (server_0 unless said), a
// record per token:
//
//   P<o> C<o> R<o> U<o>   a PREPARED, COMMITTED, ROLLED_BACK or UNKNOWN TX_RECORD of
//                         transaction 1.1.<o> (no participants)
//   D<o>                  a DATA_RECORD_V2 with one entry of 1.1.<o> (cache 42, a
//                         partition and counter of its own)
//   S<n>                  the INCREMENTAL_SNAPSHOT_START_RECORD of cut n
//   F<n>[b<o>|a<o>]...    its INCREMENTAL_SNAPSHOT_FINISH_RECORD, with the transactions
//                         of its before (included) and after (excluded) sets
//   |                     a segment switch: the next records go to the next segment
//
// The records are framed as Ignite frames them (libwal/ignite_frame.h), each at its place.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "libwal/ignite_format.h"
#include "libwal/ignite_frame.h"
#include "libwal/ignite_record.h"

namespace testing_support {

namespace ignite_script {

inline void U8(std::string* s, uint8_t v) { s->push_back(static_cast<char>(v)); }
inline void U32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
inline void U64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
// A GridCacheVersion: present, topology version 1, node order 1, `order`.
inline void Version(std::string* s, uint64_t order) {
  U8(s, 1);
  U32(s, 1);
  U32(s, 1);
  U64(s, order);
}
inline uint8_t TypeId(const char* name) {
  uint8_t id = 0;
  if (!wal::ParseIgniteRecordType(name, &id)) std::abort();
  return id;
}

}  // namespace ignite_script

// Writes the script's segments under `dir` (made if missing); returns the WAL folder.
inline std::string WriteIgniteScript(const std::string& dir, const std::vector<std::string>& tokens,
                                     const std::string& folder = "server_0") {
  using namespace ignite_script;
  const std::string wal = dir + "/work/db/wal/" + folder;
  std::filesystem::create_directories(wal);
  uint64_t segment = 0, counter = 0;
  std::string bytes = wal::IgniteHeader(segment, false);
  auto write = [&] { std::ofstream(fmt::format("{}/{:016d}.wal", wal, segment), std::ios::binary) << bytes; };
  auto add = [&](const char* type, const std::string& payload) {
    bytes += wal::IgniteFrame(TypeId(type), wal::Pointer{segment, static_cast<uint32_t>(bytes.size())}, payload);
  };
  for (const std::string& t : tokens) {
    if (t == "|") {
      bytes.push_back(static_cast<char>(wal::ignite::kSwitchByte));
      write();
      bytes = wal::IgniteHeader(++segment, false);
      continue;
    }
    char* rest = nullptr;
    const uint64_t n = std::strtoull(t.c_str() + 1, &rest, 10);
    std::string p;
    switch (t[0]) {
      case 'D':
        ++counter;
        U32(&p, 1);                 // one entry
        U64(&p, 1700000000000ull);  // timestamp (ms)
        U32(&p, 42);                // cache id
        U32(&p, 4);                 // key: 4 bytes of type 1
        U8(&p, 1);
        U32(&p, static_cast<uint32_t>(counter));
        U32(&p, 4);  // value: 4 bytes of type 1
        U8(&p, 1);
        U32(&p, 7);
        U8(&p, 1);                                     // CREATE
        Version(&p, n);                                // near version: the transaction
        Version(&p, n);                                // write version
        U32(&p, static_cast<uint32_t>(counter % 64));  // partition
        U64(&p, counter);                              // update counter
        U64(&p, UINT64_MAX);                           // expire time: never
        U8(&p, 0);                                     // flags
        add("DATA_RECORD_V2", p);
        break;
      case 'P':
      case 'C':
      case 'R':
      case 'U':
        U8(&p, t[0] == 'P' ? 2 : t[0] == 'C' ? 5 : t[0] == 'R' ? 7 : 8);  // TransactionState ordinal
        Version(&p, n);
        Version(&p, n);
        U32(&p, 0);  // no participants
        U64(&p, 1700000000000ull);
        add("TX_RECORD", p);
        break;
      case 'S':
        U64(&p, 0xABC);  // the cut's id: 0xABC, n
        U64(&p, n);
        add("INCREMENTAL_SNAPSHOT_START_RECORD", p);
        break;
      case 'F': {
        U64(&p, 0xABC);
        U64(&p, n);
        std::vector<uint64_t> before, after;
        while (rest != nullptr && *rest != '\0') {
          const char set = *rest++;
          (set == 'b' ? before : after).push_back(std::strtoull(rest, &rest, 10));
        }
        U32(&p, static_cast<uint32_t>(before.size()));
        for (uint64_t o : before) Version(&p, o);
        U32(&p, static_cast<uint32_t>(after.size()));
        for (uint64_t o : after) Version(&p, o);
        add("INCREMENTAL_SNAPSHOT_FINISH_RECORD", p);
        break;
      }
      default: std::abort();
    }
  }
  write();
  return wal;
}

}  // namespace testing_support
