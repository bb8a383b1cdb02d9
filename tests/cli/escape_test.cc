#include <gtest/gtest.h>

#include <random>

#include "tools/escape.h"

namespace tools {
namespace {

std::string Reference(std::string_view s, bool json) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += json ? fmt::format("\\u{:04x}", c) : fmt::format("\\x{:02x}", c);
    }
  }
  return out + "\"";
}

TEST(Escape, MatchesAByteByByteReferenceOnRandomInput) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 40, '\0');
    // Mostly printable with the odd special byte, so the fast path is exercised.
    for (auto& c : s) c = static_cast<char>(rng() % 9 == 0 ? rng() % 256 : 0x20 + rng() % 95);
    fmt::memory_buffer a, b;
    AppendQuoted(&a, s);
    AppendJsonString(&b, s);
    ASSERT_EQ(fmt::to_string(a), Reference(s, false)) << i;
    ASSERT_EQ(fmt::to_string(b), Reference(s, true)) << i;
  }
}

TEST(Escape, EveryByteValueAtEveryPositionOfAWord) {
  for (int c = 0; c < 256; ++c) {
    for (size_t pos = 0; pos < 9; ++pos) {
      std::string s(9, 'a');
      s[pos] = static_cast<char>(c);
      fmt::memory_buffer a;
      AppendQuoted(&a, s);
      ASSERT_EQ(fmt::to_string(a), Reference(s, false)) << c << " at " << pos;
    }
  }
}

}  // namespace
}  // namespace tools
