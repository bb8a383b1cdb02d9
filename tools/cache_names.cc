#include "tools/cache_names.h"

#include <charconv>
#include <climits>
#include <optional>

#include <fmt/format.h>

#include "app/ignite_stores.h"
#include "libwal/ignite_snapshot.h"

namespace tools {

bool ResolveCacheNames(const std::vector<std::string>& wanted, const std::map<uint32_t, std::string>& known,
                       bool ignite, const std::string& dir, std::vector<uint32_t>* ids, Output& output) {
  auto spelled = [&](uint32_t id) { return ignite ? std::to_string(static_cast<int32_t>(id)) : std::to_string(id); };
  for (const auto& want : wanted) {
    std::optional<uint32_t> id;
    for (const auto& [cid, name] : known) {
      if (want == name || want == spelled(cid)) id = cid;
    }
    if (!id && known.empty()) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(want.data(), want.data() + want.size(), v);
      if (ec == std::errc() && end == want.data() + want.size() && v >= (ignite ? INT32_MIN : 0) &&
          v <= (ignite ? INT32_MAX : UINT32_MAX)) {
        id = static_cast<uint32_t>(v);
      } else if (ignite && !want.empty()) {
        id = static_cast<uint32_t>(wal::IgniteCacheId(want));
      }
    }
    if (!id) {
      std::string have;
      for (const auto& [cid, name] : known)
        have += fmt::format("{}{} ({})", have.empty() ? "" : ", ", name, spelled(cid));
      output.Error("--cache: no cache \"{}\" in \"{}\"{}", want, dir,
                   have.empty() ? "" : " (its caches: " + have + ")");
      return false;
    }
    ids->push_back(*id);
  }
  return true;
}

std::map<uint32_t, std::string> KnownCaches(const app::WalInputs& inputs, bool* ignite) {
  std::map<uint32_t, std::string> known;
  *ignite = false;
  for (const auto& in : inputs.nodes) {
    if (!app::IsIgniteInput(in)) continue;
    *ignite = true;
    for (auto& [id, f] : app::IgniteCachesOf(in)) known.emplace(id, std::move(f.name));
  }
  if (!*ignite && inputs.cluster) {
    for (const auto& c : inputs.cluster->caches) known[c.id] = c.name;
  }
  return known;
}

}  // namespace tools
