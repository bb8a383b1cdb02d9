// FdSink writes what it is given in order, whether a piece is buffered or, being larger
// than its buffer, written at once after what was buffered before it.
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

}  // namespace
}  // namespace tools
