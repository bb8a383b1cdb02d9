#include "app/cut_choice.h"

#include <cctype>
#include <vector>

#include <fmt/format.h>

namespace app {

wal::Result<size_t> ChooseCut(const cut::ClusterReport& report, const std::string& prefix) {
  std::string p = prefix;
  for (auto& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<size_t> hits;
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    if (report.cuts[i].id.ToString().starts_with(p)) hits.push_back(i);
  }
  if (hits.size() == 1) return hits[0];
  if (hits.empty()) return wal::Status::NotFound(fmt::format("no cut id starts with \"{}\"", prefix));
  return wal::Status::InvalidArgument(fmt::format("\"{}\" matches {} cuts; give more of the id", prefix, hits.size()));
}

}  // namespace app
