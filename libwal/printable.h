// A string read from a file, fit for a one-line message: printable ASCII as it is, a
// backslash and every other byte escaped (\xNN), at most `max` bytes of it shown (then
// "..."). What a damaged file holds never reaches a terminal raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace wal {

inline std::string Printable(std::string_view s, size_t max = 64) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == max) return out + "...";
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace wal
