#include "tools/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "libwal/wal_reader.h"

namespace tools {

namespace {

constexpr auto kFirstDraw = std::chrono::milliseconds(1000);
constexpr auto kRedraw = std::chrono::milliseconds(250);

// When the line is first drawn: after a second, or after WALCUT_PROGRESS_AFTER seconds
// (walcut(1), ENVIRONMENT); a value that is not a number from 0 to 86400 is ignored.
std::chrono::milliseconds FirstDraw() {
  const char* v = std::getenv("WALCUT_PROGRESS_AFTER");
  if (v == nullptr || *v == '\0') return kFirstDraw;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (*end != '\0' || !(s >= 0 && s <= 86400)) return kFirstDraw;
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

void WriteErr(std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    s.remove_prefix(static_cast<size_t>(n));
  }
}

std::string Duration(double seconds) {
  const auto s = static_cast<uint64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace

Progress::Progress(bool show, std::string what, uint64_t total, std::string unit, std::function<uint64_t()> done)
    : what_(std::move(what)),
      total_(total),
      unit_(std::move(unit)),
      done_(std::move(done)),
      start_(std::chrono::steady_clock::now()) {
  if (show && total_ > 0) thread_ = std::thread([this] { Run(); });
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) WriteErr("\r\033[K");
}

std::string Progress::Line(const std::string& what, uint64_t done, uint64_t total, const std::string& unit,
                           double elapsed) {
  if (done > total) done = total;
  const double share = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  std::string line = fmt::format("{}: {} of {} {} ({:.0f}%)", what, done, total, unit, share * 100);
  if (done > 0 && done < total) line += fmt::format(", about {} left", Duration(elapsed / share - elapsed));
  return line;
}

void Progress::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  if (cv_.wait_until(lock, start_ + FirstDraw(), [this] { return stop_; })) return;
  while (!stop_) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    WriteErr("\r\033[K" + Line(what_, done_(), total_, unit_, elapsed));
    drawn_ = true;
    cv_.wait_for(lock, kRedraw, [this] { return stop_; });
  }
}

Progress WalProgress(const Output& output, std::string what, const std::vector<app::WalInput>& inputs, int passes) {
  const bool show = output.progress;
  uint64_t segments = 0;
  if (show) {
    for (const auto& in : inputs) {
      auto files =
          in.wal_dir.empty() ? wal::Result<std::vector<wal::SegmentFile>>(in.files) : wal::ListSegments(in.wal_dir);
      if (files.ok()) segments += files->size();
    }
  }
  const uint64_t base = wal::SegmentsDone();
  return Progress(show, std::move(what), segments * static_cast<uint64_t>(passes), "segments",
                  [base] { return wal::SegmentsDone() - base; });
}

}  // namespace tools
