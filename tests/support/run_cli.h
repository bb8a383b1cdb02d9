// Test support: run `walcut ARGS...` in-process and keep exit code, stdout and stderr.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/app.h"
#include "tools/output.h"

namespace testing_support {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline CliResult RunCli(const std::vector<std::string>& args) {
  tools::StringSink out, err;
  tools::Output output{&out, &err, false};
  CliResult r;
  r.code = tools::RunWalcut(args, output);
  r.out = out.text();
  r.err = err.text();
  return r;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares `actual` with the golden file, or rewrites the golden file when the
// environment has WALCUT_UPDATE_GOLDEN=1 (the diff is then reviewed like code).
inline bool MatchesGolden(const std::string& golden_path, const std::string& actual, std::string* why) {
  const char* update = std::getenv("WALCUT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden_path, std::ios::binary) << actual;
    return true;
  }
  std::string expected = ReadFile(golden_path);
  if (expected == actual) return true;
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  size_t line_start = expected.rfind('\n', i == 0 ? 0 : i - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  *why = "first difference at byte " + std::to_string(i) + " of " + golden_path +
         "\nexpected: " + expected.substr(line_start, 200) + "\nactual:   " + actual.substr(line_start, 200) +
         "\n(set WALCUT_UPDATE_GOLDEN=1 to accept the new output)";
  return false;
}

}  // namespace testing_support
