#include "tools/command.h"

#include <charconv>
#include <cmath>

#include "tools/app.h"
#include "tools/record_format.h"

namespace tools {

const std::atomic<bool>* CommandContext::Cancellable() const {
  if (interrupt == nullptr) return nullptr;
  interrupt->cancellable = true;
  return &interrupt->stop;
}

void AddCommonFlags(CLI::App* sub, CommonFlags* flags) {
  sub->add_flag("--json", flags->json, "Machine-readable output (see OUTPUT in the man page)");
  sub->add_flag("-q,--quiet", flags->quiet, "Print only errors: no records, tables or warnings");
}

bool ParseWhole(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

CLI::Option* AddReal(CLI::App* sub, const std::string& name, double* var, double min, double max,
                     const std::string& help, bool above_min) {
  return sub
      ->add_option_function<std::string>(
          name,
          [=](const std::string& text) {
            double v = 0;
            const char* b = text.data();
            const char* e = b + text.size();
            auto [p, ec] = std::from_chars(b, e, v, std::chars_format::fixed);
            const bool ok = !text.empty() && ec == std::errc() && p == e && std::isfinite(v) &&
                            (above_min ? v > min : v >= min) && v <= max;
            if (!ok) {
              throw CLI::ValidationError(name, fmt::format("\"{}\" is not a decimal number {} {} and at most {}", text,
                                                           above_min ? "above" : "from", min, max));
            }
            *var = v;
          },
          help)
      ->type_name("X");
}

bool ParseSize(const std::string& text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p == text.data()) return false;
  std::string_view rest(p, static_cast<size_t>(text.data() + text.size() - p));
  uint64_t mult = 1;
  if (rest == "K" || rest == "k" || rest == "KiB")
    mult = 1ull << 10;
  else if (rest == "M" || rest == "m" || rest == "MiB")
    mult = 1ull << 20;
  else if (rest == "G" || rest == "g" || rest == "GiB")
    mult = 1ull << 30;
  else if (!rest.empty())
    return false;
  if (v > UINT64_MAX / mult) return false;
  *out = v * mult;
  return true;
}

void AddLocalFlag(CLI::App* sub) {
  sub->add_flag_callback(
      "--local", [] { SetLocalTimes(true); },
      "Print wall-clock times (Apache Ignite's) in the local time zone, with its offset, not in UTC");
}

}  // namespace tools
