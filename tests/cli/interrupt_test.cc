// SIGINT and SIGTERM mid-run, to the real binary: the command stops promptly, removes
// what it was writing, and exits 130 or 143.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using testing_support::RunCli;
using testing_support::TempDir;

// Starts walcut with `args`, sends `sig` after `after`, and returns its exit status
// (-1 when it ended before the signal: too fast to test) and how long it took after.
int RunAndSignal(const std::vector<std::string>& args, int sig, std::chrono::milliseconds after, double* seconds) {
  std::vector<std::string> all = {WALCUT_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, WALCUT_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  std::this_thread::sleep_for(after);
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return -1;
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, sig);
  waitpid(pid, &status, 0);
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

TEST(Interrupt, SimulateStopsAndLeavesNothing) {
  TempDir dir;
  const std::string out = dir.path() + "/big";
  for (int sig : {SIGINT, SIGTERM}) {
    double took = 0;
    int rc =
        RunAndSignal({"simulate", "-q", "-o", out, "--txs", "100000000"}, sig, std::chrono::milliseconds(300), &took);
    ASSERT_NE(rc, -1) << "finished before the signal";
    EXPECT_EQ(rc, 128 + sig);
    EXPECT_LT(took, 2.0);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out + ".partial"));
  }
}

TEST(Interrupt, RestoreStopsAndLeavesNothing) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--txs", "150000", "--nodes", "4", "--cuts", "2"}).code, 0);
  const std::string out = dir.path() + "/r";
  int tried = 0, caught = 0;
  for (int delay : {40, 80, 150}) {
    for (int sig : {SIGINT, SIGTERM}) {
      double took = 0;
      int rc = RunAndSignal({"restore", c, "--latest", "-o", out, "--jobs", "1"}, sig, std::chrono::milliseconds(delay),
                            &took);
      ++tried;
      if (rc == -1) {
        fs::remove_all(out);  // it was done already
        continue;
      }
      ++caught;
      EXPECT_EQ(rc, 128 + sig) << delay;
      EXPECT_LT(took, 2.0);
      EXPECT_FALSE(fs::exists(out)) << delay;
      EXPECT_FALSE(fs::exists(out + ".partial")) << delay;
    }
  }
  EXPECT_GT(caught, 0) << "every restore of " << tried << " finished before its signal";
}

TEST(Interrupt, AReadingCommandStopsAtOnceWithTheSignal) {
  TempDir dir;
  const std::string c = dir.path() + "/c";
  ASSERT_EQ(RunCli({"simulate", "-q", "-o", c, "--txs", "10000"}).code, 0);
  double took = 0;
  int rc = RunAndSignal({"dump", "--follow", c}, SIGINT, std::chrono::milliseconds(300), &took);
  EXPECT_EQ(rc, 130);
  rc = RunAndSignal({"dump", "--follow", c}, SIGTERM, std::chrono::milliseconds(300), &took);
  EXPECT_EQ(rc, 143);
}

}  // namespace
