// Printing byte strings: quoted text for humans, JSON strings for scripts.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace tools {

// "acct-1" style: printable ASCII as is, `"` and `\` escaped, other bytes as \xNN.
void AppendQuoted(fmt::memory_buffer* out, std::string_view bytes);

// A JSON string literal. Bytes outside printable ASCII are written as \u00NN, so each
// byte maps to one code point (Latin-1) and the original bytes can be recovered.
void AppendJsonString(fmt::memory_buffer* out, std::string_view bytes);

}  // namespace tools
