// FdSink writes what it is given in order, whether a piece is buffered or, being larger
// than its buffer, written at once after what was buffered before it. ExitCodeOf gives
// each step's exit status for a failed status, as walcut(1) documents them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.h"
#include "tools/output.h"

namespace tools {
namespace {

TEST(FdSink, LargePiecesKeepTheirPlace) {
  testing_support::TempDir dir;
  const std::string path = dir.path() + "/out";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::string want;
  {
    FdSink sink(fd, 16);
    const std::string pieces[] = {"ab", "cdefghij", std::string(40, 'x'), "k", std::string(16, 'y'), "lm"};
    for (const std::string& piece : pieces) {
      sink.Write(piece);
      want += piece;
    }
    EXPECT_TRUE(sink.good());
  }  // flushed here
  ::close(fd);
  std::ifstream in(path);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), want);
}

// The same status means different things at different steps; each step's rule holds.
TEST(ExitCodeOf, EachStepKeepsItsRule) {
  const wal::Status missing = wal::Status::NotFound("x"), malformed = wal::Status::InvalidArgument("x"),
                    refused = wal::Status::IoError("x"), damaged = wal::Status::Corruption("x"),
                    exists = wal::Status::AlreadyExists("x"), stopped = wal::Status::Cancelled("x"),
                    broken = wal::Status::Internal("x");
  // Resolving inputs: what is missing or unreadable is 3, what is malformed 2.
  EXPECT_EQ(ExitCodeOf(missing, Step::kInputs), kExitUnreadable);
  EXPECT_EQ(ExitCodeOf(refused, Step::kInputs), kExitUnreadable);
  EXPECT_EQ(ExitCodeOf(damaged, Step::kInputs), kExitUnreadable);
  EXPECT_EQ(ExitCodeOf(malformed, Step::kInputs), kExitUsage);
  // A refusal by the data: 1, except what the system would not let be read.
  EXPECT_EQ(ExitCodeOf(missing, Step::kRefusal), kExitProblems);
  EXPECT_EQ(ExitCodeOf(malformed, Step::kRefusal), kExitProblems);
  EXPECT_EQ(ExitCodeOf(damaged, Step::kRefusal), kExitProblems);
  EXPECT_EQ(ExitCodeOf(refused, Step::kRefusal), kExitUnreadable);
  // Preparing the output: the user chooses another (2) unless the system refused (3).
  EXPECT_EQ(ExitCodeOf(exists, Step::kOutput), kExitUsage);
  EXPECT_EQ(ExitCodeOf(malformed, Step::kOutput), kExitUsage);
  EXPECT_EQ(ExitCodeOf(refused, Step::kOutput), kExitUnreadable);
  // Everywhere: an interruption is 130, a broken invariant 4.
  for (Step step : {Step::kInputs, Step::kRefusal, Step::kOutput}) {
    EXPECT_EQ(ExitCodeOf(stopped, step), kExitInterrupted);
    EXPECT_EQ(ExitCodeOf(broken, step), kExitInternal);
    EXPECT_EQ(ExitCodeOf(wal::Status::Ok(), step), kExitOk);
  }
}

}  // namespace
}  // namespace tools
