// Printing byte strings: quoted text for humans, JSON strings for scripts.
#pragma once

#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "libwal/java_text.h"

namespace tools {

// Appends raw bytes; cheaper than memory_buffer::append for the short pieces a record
// line is made of.
inline void AppendRaw(fmt::memory_buffer* out, const char* p, size_t n) {
  size_t at = out->size();
  out->try_resize(at + n);
  std::memcpy(out->data() + at, p, n);
}

// "acct-1" style: printable ASCII as is, `"` and `\` escaped, other bytes as \xNN.
void AppendQuoted(fmt::memory_buffer* out, std::string_view bytes);

// A JSON string literal. Valid UTF-8 is written as it is; a control byte (below 0x20,
// and 0x7f), and each byte that is not part of a valid UTF-8 sequence, is written as
// \u00NN. As valid characters are never escaped, \u0080 to \u00ff in walcut's output
// always stand for single bytes, so the original bytes can be recovered.
void AppendJsonString(fmt::memory_buffer* out, std::string_view bytes);

// The length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), or 0: libwal's.
using wal::Utf8SequenceLength;

}  // namespace tools
