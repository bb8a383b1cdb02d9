// Progress of a long command on a terminal: one line on standard error, redrawn at most
// four times a second, with the share done and an estimate of the time left. Nothing at
// all when standard error is not a terminal or --quiet is given, and nothing for a
// command done within its first second. The line is cleared when the progress ends.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/inputs.h"
#include "tools/output.h"

namespace tools {

class Progress {
 public:
  // `done()` counts up to `total` in `unit`s ("segments", "transactions"); it is read
  // from another thread, so it must be thread-safe. `show`: whether to draw at all
  // (Output::progress).
  Progress(bool show, std::string what, uint64_t total, std::string unit, std::function<uint64_t()> done);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The line to draw for `done` of `total` after `elapsed` seconds (without "\r").
  static std::string Line(const std::string& what, uint64_t done, uint64_t total, const std::string& unit,
                          double elapsed);

 private:
  void Run();

  std::string what_;
  uint64_t total_;
  std::string unit_;
  std::function<uint64_t()> done_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

// Progress of reading the WALs of `inputs` `passes` times (a command that reads each
// WAL twice counts it twice), by segments finished.
Progress WalProgress(const Output& output, std::string what, const std::vector<app::WalInput>& inputs, int passes = 1);

}  // namespace tools
