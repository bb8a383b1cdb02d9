// Parsing the parts of a SimConfig that are text (fault specs).
#include "sim/config.h"

#include <stdexcept>
#include <string>

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
  try {
    size_t used = 0;
    if (scale == 0) {
      if (w.empty() || w[0] == '-') throw std::invalid_argument("sign");
      unsigned long long n = std::stoull(w, &used);
      if (used != w.size()) throw std::invalid_argument("trailing");
      *when = FaultTime{false, n, 0};
    } else {
      double v = std::stod(w, &used);
      if (used != w.size() || v < 0 || v > 1e6) throw std::invalid_argument("range");
      *when = FaultTime{true, 0, static_cast<uint64_t>(v * scale)};
    }
  } catch (...) {
    return fmt::format("\"{}\": WHEN must be a transaction count (@5000) or a time (@2.5s, @300ms, @40us)", spec);
  }
  return "";
}

}  // namespace sim
