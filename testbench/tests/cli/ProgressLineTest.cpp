// The progress line a long run shows on a terminal: cycle, share done and
// time left when the workload can tell its share, the cycle alone when it
// cannot, and a cleared line at the end (nothing at all if never shown).
#include <gtest/gtest.h>

#include <sstream>

#include "testbench/cli/ProgressLine.h"

namespace wsesim::cli {
namespace {

TEST(ProgressLine, ShowsCycleShareAndTimeLeftThenClearsItself) {
  std::ostringstream out;
  ProgressLine line(out);
  line.progress(1234, 0.25, false);
  EXPECT_NE(out.str().find("\r\033[K  cycle 1234, 25.0% done, about "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(" s left ("), std::string::npos) << out.str();
  out.str("");
  line.progress(99, -1, false);  // a driver that cannot tell its share
  EXPECT_EQ(out.str().find('%'), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("cycle 99 ("), std::string::npos) << out.str();
  out.str("");
  line.progress(100, 1.0, true);
  EXPECT_EQ(out.str(), "\r\033[K");
}

TEST(ProgressLine, ARunTooShortToReportLeavesNoTrace) {
  std::ostringstream out;
  ProgressLine line(out);
  line.progress(10, 1.0, true);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace wsesim::cli
