#include "tools/escape.h"

namespace tools {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool IsPlain(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }

}  // namespace

void AppendQuoted(fmt::memory_buffer* out, std::string_view bytes) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (IsPlain(c)) continue;
    out->append(bytes.data() + run, bytes.data() + i);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      out->append(esc, esc + 4);
    }
  }
  out->append(bytes.data() + run, bytes.data() + bytes.size());
  out->push_back('"');
}

void AppendJsonString(fmt::memory_buffer* out, std::string_view bytes) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (IsPlain(c)) continue;
    out->append(bytes.data() + run, bytes.data() + i);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out->append(esc, esc + 6);
    }
  }
  out->append(bytes.data() + run, bytes.data() + bytes.size());
  out->push_back('"');
}

}  // namespace tools
