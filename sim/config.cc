// Parsing the parts of a SimConfig that are text (fault specs).
#include "sim/config.h"

#include <charconv>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace sim {

std::string ParseFaultSpec(const std::string& spec, std::string* node, FaultTime* when) {
  size_t at = spec.find('@');
  if (at == std::string::npos) return fmt::format("\"{}\": expected {}@WHEN", spec, node ? "NODE" : "");
  if (node != nullptr) {
    *node = spec.substr(0, at);
    if (node->empty()) return fmt::format("\"{}\": no node before @", spec);
  } else if (at != 0) {
    return fmt::format("\"{}\": expected @WHEN", spec);
  }
  std::string w = spec.substr(at + 1);
  double scale = 0;  // ns per unit; 0 = a transaction count
  for (auto [suffix, ns] : {std::pair<const char*, double>{"ms", 1e6}, {"us", 1e3}, {"s", 1e9}}) {
    std::string sx = suffix;
    if (w.size() > sx.size() && w.compare(w.size() - sx.size(), sx.size(), sx) == 0) {
      w.resize(w.size() - sx.size());
      scale = ns;
      break;
    }
  }
  auto bad = [&spec] {
    return fmt::format("\"{}\": WHEN must be a transaction count (@5000) or a time (@2.5s, @300ms, @40us)", spec);
  };
  const char* end = w.data() + w.size();
  if (w.empty() || w[0] == '-' || w[0] == '+') return bad();
  if (scale == 0) {
    unsigned long long n = 0;
    const auto [stop, ec] = std::from_chars(w.data(), end, n);
    if (ec != std::errc() || stop != end) return bad();
    *when = FaultTime{false, n, 0};
  } else {
    double v = 0;
    const auto [stop, ec] = std::from_chars(w.data(), end, v);
    if (ec != std::errc() || stop != end || !(v >= 0 && v <= 1e6)) return bad();
    *when = FaultTime{true, 0, static_cast<uint64_t>(v * scale)};
  }
  return "";
}

}  // namespace sim
