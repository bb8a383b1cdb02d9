// Small side files parsed once per process. The nodes of a cluster, and a node's work
// directory and its snapshots, hold the same metadata and configurations byte for byte,
// and a command reads some of them several times (a check of an increment reads a
// node's snapshot metadata eight times): each distinct content is parsed once.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "libwal/status.h"

namespace wal {

// `parse(bytes)`, from the process's memo when these bytes were parsed before. What is
// kept is bounded, per parser: files up to 64 KiB, 4 MiB of them in all (and their parses,
// of about their size); beyond, each is parsed.
// Thread-safe; the result is the same as parse's, memo or not.
template <typename T, Result<T> (*Parse)(std::string_view)>
Result<T> ParseOnce(std::string_view bytes) {
  constexpr size_t kMaxFile = 64 << 10;
  constexpr size_t kMaxKept = 4 << 20;
  static std::mutex mu;
  static std::map<std::string, Result<T>, std::less<>> parsed;
  static size_t kept = 0;
  if (bytes.size() > kMaxFile) return Parse(bytes);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = parsed.find(bytes); it != parsed.end()) return it->second;
  }
  Result<T> out = Parse(bytes);
  std::lock_guard<std::mutex> lock(mu);
  if (kept + bytes.size() <= kMaxKept && parsed.emplace(std::string(bytes), out).second) kept += bytes.size();
  return out;
}

}  // namespace wal
