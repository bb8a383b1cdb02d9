// Printing byte strings: quoted text for humans, JSON strings for scripts.
#pragma once

#include <cstring>
#include <string_view>

#include <fmt/format.h>

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

// A JSON string literal. Bytes outside printable ASCII are written as \u00NN, so each
// byte maps to one code point (Latin-1) and the original bytes can be recovered.
void AppendJsonString(fmt::memory_buffer* out, std::string_view bytes);

}  // namespace tools
