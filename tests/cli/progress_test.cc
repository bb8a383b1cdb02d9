// Progress on a terminal (tools/progress.h): drawn on standard error when it is a
// terminal, never when it is not, and cleared when the work is done.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tools/progress.h"

namespace {

namespace fs = std::filesystem;

TEST(Progress, TheLineSaysHowFarAndHowLongIsLeft) {
  EXPECT_EQ(tools::Progress::Line("reading the WALs", 3, 12, "segments", 2.0),
            "reading the WALs: 3 of 12 segments (25%), about 6s left");
  EXPECT_EQ(tools::Progress::Line("restoring", 0, 10, "MiB", 1.0), "restoring: 0 of 10 MiB (0%)");
  EXPECT_EQ(tools::Progress::Line("simulating", 15, 10, "transactions", 9.0),
            "simulating: 10 of 10 transactions (100%)");
  EXPECT_EQ(tools::Progress::Line("x", 1, 100, "segments", 50.0), "x: 1 of 100 segments (1%), about 1h22m left");
}

// Runs walcut with standard error on a pseudo-terminal (or on a pipe) and returns what
// it wrote there.
std::string StderrOf(const std::vector<std::string>& args, bool terminal) {
  int master = -1;
  int pipe_fds[2] = {-1, -1};
  pid_t pid;
  if (terminal) {
    pid = forkpty(&master, nullptr, nullptr, nullptr);
  } else {
    if (pipe(pipe_fds) != 0) return "pipe failed";
    pid = fork();
  }
  if (pid == 0) {
    if (!terminal) {
      dup2(pipe_fds[1], STDERR_FILENO);
      close(pipe_fds[0]);
    }
    std::vector<char*> argv;
    std::string bin = WALCUT_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  const int fd = terminal ? master : pipe_fds[0];
  if (!terminal) close(pipe_fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;  // EIO on a pty once the child is gone
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

// A command without --quiet (completion) once aborted when standard error was a
// terminal, asking whether --quiet was given; the README's `source <(walcut completion
// bash)` is typed on a terminal.
TEST(Progress, CompletionPrintsItsScriptWhenStandardErrorIsATerminal) {
  for (const char* shell : {"bash", "zsh"}) {
    const std::string out = StderrOf({"completion", shell}, true);
    EXPECT_EQ(out.find("terminate called"), std::string::npos) << out.substr(0, 300);
    EXPECT_NE(out.find(std::string(shell) == "bash" ? "-F _walcut walcut" : "#compdef walcut"), std::string::npos)
        << shell << ": " << out.substr(0, 300);
  }
}

TEST(Progress, DrawnOnATerminalOnlyAndClearedAtTheEnd) {
  const fs::path dir = fs::path(testing::TempDir()) / "progress-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Drawn at once (WALCUT_PROGRESS_AFTER=0), not after the first second: a machine fast
  // enough finishes the simulation within it. The runs on a pipe and with -q have it too,
  // so their empty stderr shows the rule, not the speed.
  setenv("WALCUT_PROGRESS_AFTER", "0", 1);
  const std::vector<std::string> sim = {
      "simulate", "-o", (dir / "a").string(), "--nodes", "3", "--txs", "50000", "--partitions", "8", "--cuts", "0"};
  const std::string tty = StderrOf(sim, true);
  EXPECT_NE(tty.find("simulating: "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" of 50000 transactions ("), std::string::npos) << tty;
  const size_t last = tty.rfind("simulating: ");
  EXPECT_NE(tty.find("\r\033[K", last), std::string::npos) << "the line is cleared at the end";

  auto piped = sim;
  piped[2] = (dir / "b").string();
  const std::string pipe_err = StderrOf(piped, false);
  EXPECT_EQ(pipe_err.find("simulating: "), std::string::npos) << pipe_err;

  auto quiet = sim;
  quiet[2] = (dir / "c").string();
  quiet.push_back("-q");
  const std::string quiet_err = StderrOf(quiet, true);
  EXPECT_EQ(quiet_err.find("simulating: "), std::string::npos) << quiet_err;
  unsetenv("WALCUT_PROGRESS_AFTER");
  fs::remove_all(dir);
}

// An increment's check that reads the nodes a second time, each to its end (the first
// reading, to the increment's Finish record, met damage), says so on its second line.
TEST(Progress, ASecondReadingOfTheNodesSaysWhatItIs) {
  const fs::path dir = fs::path(testing::TempDir()) / "progress-again-test";
  fs::remove_all(dir);
  fs::copy(std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/rebalance/nodes", dir, fs::copy_options::recursive);
  // Damage in segment 2 of server-0, which increment 2 of snap needs.
  const fs::path seg = dir / "server-0/work/db/wal/archive/server_0/0000000000000002.wal.zip";
  {
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(fs::file_size(seg) / 2);
    f.seekg(at);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 1);
    f.seekp(at);
    f.write(&c, 1);
  }
  setenv("WALCUT_PROGRESS_AFTER", "0", 1);
  const std::string tty = StderrOf({"check", dir.string(), "--snapshot", "snap", "--increment", "2"}, true);
  unsetenv("WALCUT_PROGRESS_AFTER");
  EXPECT_NE(tty.find("reading the WALs: "), std::string::npos) << tty;
  EXPECT_NE(tty.find("reading the WALs again, each to its end: "), std::string::npos) << tty;
  fs::remove_all(dir);
}

}  // namespace
