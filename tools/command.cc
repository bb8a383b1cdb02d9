#include "tools/command.h"

#include <charconv>

namespace tools {

void AddCommonFlags(CLI::App* sub, CommonFlags* flags) {
  sub->add_flag("--json", flags->json, "Machine-readable output (see OUTPUT in the man page)");
  sub->add_flag("-q,--quiet", flags->quiet, "Print only errors: no records, tables or warnings");
}

bool ParseSize(const std::string& text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p == text.data()) return false;
  std::string_view rest(p, static_cast<size_t>(text.data() + text.size() - p));
  uint64_t mult = 1;
  if (rest == "K" || rest == "k" || rest == "KiB") mult = 1ull << 10;
  else if (rest == "M" || rest == "m" || rest == "MiB") mult = 1ull << 20;
  else if (rest == "G" || rest == "g" || rest == "GiB") mult = 1ull << 30;
  else if (!rest.empty()) return false;
  if (v > UINT64_MAX / mult) return false;
  *out = v * mult;
  return true;
}

}  // namespace tools
