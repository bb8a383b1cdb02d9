#include <gtest/gtest.h>

#include <random>

#include "tools/escape.h"

namespace tools {
namespace {

std::string Reference(std::string_view s, bool json) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    const size_t utf8 = json && c >= 0x80 ? Utf8SequenceLength(s, i) : 0;
    if (utf8 > 0) {
      out.append(s.substr(i, utf8));
      i += utf8 - 1;
    } else if (c == '"' || c == '\\') {
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

TEST(Escape, JsonPassesValidUtf8AndEscapesEveryOtherByte) {
  fmt::memory_buffer b;
  AppendJsonString(&b, "\xc3\xbc-\xe2\x82\xac-\xf0\x9f\x98\x80-\xff-\xc3-\xed\xa0\x80-\xc0\xaf");
  EXPECT_EQ(fmt::to_string(b),
            "\"\xc3\xbc-\xe2\x82\xac-\xf0\x9f\x98\x80-\\u00ff-\\u00c3-\\u00ed\\u00a0\\u0080-\\u00c0\\u00af\"");
}

}  // namespace
}  // namespace tools
