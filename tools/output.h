// Where commands write: data to `out`, messages to `err`. Injected so that commands run
// in-process in tests; buffered so that dumping millions of lines stays cheap.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "libwal/status.h"

namespace tools {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Write(std::string_view bytes) = 0;
  virtual void Flush() {}
  // False once a write failed (a closed pipe): commands may stop early.
  virtual bool good() const { return true; }
};

// Buffered writes to a file descriptor.
class FdSink : public Sink {
 public:
  explicit FdSink(int fd, size_t buffer = 1 << 16) : fd_(fd), limit_(buffer) {}
  ~FdSink() override { Flush(); }
  void Write(std::string_view bytes) override;
  void Flush() override;
  bool good() const override { return good_; }

 private:
  void WriteAll(std::string_view bytes);

  int fd_;
  size_t limit_;
  std::string buf_;
  bool good_ = true;
};

class StringSink : public Sink {
 public:
  void Write(std::string_view bytes) override { text_.append(bytes); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// "512 B", "3.4 KiB", "1.2 MiB", "2.0 GiB".
std::string FormatBytes(uint64_t n);

struct Output {
  Sink* out = nullptr;
  Sink* err = nullptr;
  bool err_is_terminal = false;
  // Draw the progress of long work on `err` (progress.h): a terminal, and not --quiet.
  bool progress = false;

  template <typename... Args>
  void Error(fmt::format_string<Args...> f, Args&&... args) {
    err->Write("walcut: error: ");
    err->Write(fmt::format(f, std::forward<Args>(args)...));
    err->Write("\n");
  }
  template <typename... Args>
  void Warning(fmt::format_string<Args...> f, Args&&... args) {
    err->Write("walcut: warning: ");
    err->Write(fmt::format(f, std::forward<Args>(args)...));
    err->Write("\n");
  }
  template <typename... Args>
  void Hint(fmt::format_string<Args...> f, Args&&... args) {
    err->Write("hint: ");
    err->Write(fmt::format(f, std::forward<Args>(args)...));
    err->Write("\n");
  }
};

// Exit codes shared by every command (walcut(1), EXIT STATUS).
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitUnreadable = 3;
inline constexpr int kExitInternal = 4;
// Stopped by SIGINT or SIGTERM before finishing (what it was writing removed): the
// shell's convention, 128 + the signal; the process exits with the signal's own.
inline constexpr int kExitInterrupted = 130;

// What a failed step was doing decides what its status means to the user: the same
// kNotFound is an unreadable input while the inputs are resolved, and a refusal once the
// data has been read (a node the cut does not name). One row per step, one column per
// status code, in ExitCodeOf's table (output.cc).
enum class Step {
  kInputs,   // resolving the paths given: missing or unreadable is 3, malformed is 2
  kRefusal,  // the data read says no (restore, diff): 1, but 3 for what could not be read
  kOutput,   // preparing the output: 3 where the system refused, 2 where the user must choose
};
int ExitCodeOf(const wal::Status& status, Step step);

}  // namespace tools
