// The pieces a dumped record line is built from, shared by the describers of walcut's
// own records (record_format.cc) and of Apache Ignite's (dump_ignite.cc).
#pragma once

#include <charconv>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "libwal/record.h"
#include "tools/escape.h"
#include "tools/record_format.h"

namespace tools {

template <typename... Args>
void Put(fmt::memory_buffer* out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), f, std::forward<Args>(args)...);
}

inline void PutStr(fmt::memory_buffer* out, std::string_view s) { AppendRaw(out, s.data(), s.size()); }

// Hot-path number printing: the digits written straight into the buffer, no
// format-string parsing and no copy per call.
inline void PutU(fmt::memory_buffer* out, uint64_t v) {
  const size_t at = out->size();
  out->try_resize(at + 20);  // the most digits a uint64_t has
  const auto r = std::to_chars(out->data() + at, out->data() + at + 20, v);
  out->try_resize(static_cast<size_t>(r.ptr - out->data()));
}

inline void PutI(fmt::memory_buffer* out, int64_t v) {
  if (v < 0) out->push_back('-');
  PutU(out, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
}

// " [cache ID (NAME) part P cntr C OP key ": the head of a DATA entry's text, in either
// format (Ignite's cache ids are signed), NAME only when known.
void PutEntryHead(fmt::memory_buffer* out, int64_t cache, const std::string* name, uint64_t partition, uint64_t counter,
                  wal::EntryOp op);

// "T.N.O", or "T.N.O@D" with a data-center id.
void PutTxId(fmt::memory_buffer* out, const wal::TxId& id);

// " participants 1[2,3] 2[3,1]": each primary by node order with its backups.
// With `others` (Apache Ignite's), a backup id of Ignite's every-other-node sentinel (32767)
// prints as that word.
void PutParticipantsText(fmt::memory_buffer* out, const std::vector<wal::Participant>& participants,
                         std::string_view others = {});

// fn(entry) for each entry of `d` the format prints: all, or those of f.entries.
template <typename Fn>
void ForEachEntry(const wal::DataRecord& d, const RecordFormat& f, Fn fn) {
  if (f.entries == nullptr) {
    for (const auto& e : d.entries) fn(e);
  } else {
    for (uint32_t i : *f.entries) fn(d.entries[i]);
  }
}

}  // namespace tools
