#include "tools/escape.h"

#include "libwal/java_text.h"

namespace tools {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool IsPlain(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

// Length of the prefix of `s` that needs no escaping, eight bytes at a time: a word is
// plain when no byte is below 0x20, above 0x7e, '"' or '\\' (SWAR byte tests).
size_t PlainPrefix(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    if ((x & kHigh) != 0) break;              // a byte >= 0x80
    uint64_t ctrl = (x - kOnes * 0x20) & ~x;  // a byte < 0x20
    uint64_t del = x + kOnes;                 // 0x7f (no carries: all < 0x80)
    uint64_t q = x ^ (kOnes * '"');
    uint64_t bs = x ^ (kOnes * '\\');
    uint64_t quote = (q - kOnes) & ~q;    // a byte equal to '"'
    uint64_t slash = (bs - kOnes) & ~bs;  // a byte equal to '\\'
    if (((ctrl | del | quote | slash) & kHigh) != 0) break;
  }
  while (i < s.size() && IsPlain(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

void AppendQuoted(fmt::memory_buffer* out, std::string_view bytes) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = PlainPrefix(bytes); i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (IsPlain(c)) continue;
    AppendRaw(out, bytes.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      out->append(esc, esc + 4);
    }
  }
  AppendRaw(out, bytes.data() + run, bytes.size() - run);
  out->push_back('"');
}

void AppendJsonString(fmt::memory_buffer* out, std::string_view bytes) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = PlainPrefix(bytes); i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (IsPlain(c)) continue;
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(bytes, i);
      if (n > 0) {  // valid UTF-8 goes as it is
        i += n - 1;
        continue;
      }
    }
    AppendRaw(out, bytes.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out->append(esc, esc + 6);
    }
  }
  AppendRaw(out, bytes.data() + run, bytes.size() - run);
  out->push_back('"');
}

}  // namespace tools
