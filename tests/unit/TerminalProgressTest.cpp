#include "report/TerminalProgress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace splitstep {
namespace {

TEST(TerminalProgress, TheLineNamesTheCaseItsNumberTheTimeSpentAndLeft) {
  EXPECT_EQ(TerminalProgress::line(1, 40, 0.2, "matmul fp32 n=4096"),
            "case 1 of 40 | 0:00 elapsed | estimate after the first case | matmul fp32 n=4096");
  // Two cases took 20 s: the 38 after them, at 10 s each, take 6:20.
  EXPECT_EQ(TerminalProgress::line(3, 40, 20, "allreduce nccl fp32 1 MiB"),
            "case 3 of 40 | 0:20 elapsed | about 6:20 left | allreduce nccl fp32 1 MiB");
  EXPECT_EQ(TerminalProgress::line(2, 2, 3725, "step"),
            "case 2 of 2 | 1:02:05 elapsed | about 1:02:05 left | step");
  // More cases than announced: no estimate rather than a wrong one.
  EXPECT_EQ(TerminalProgress::line(5, 4, 8, "x"),
            "case 5 of 4 | 0:08 elapsed | estimate after the first case | x");
  EXPECT_EQ(TerminalProgress::line(3, 40, 20, std::string(200, 'c')).size(),
            TerminalProgress::kWidth);
}

TEST(TerminalProgress, EachCaseRedrawsTheLineAndTheEndErasesIt) {
  std::ostringstream out;
  double now = 100;
  TerminalProgress progress(out, [&now] { return now; });
  progress.start(3);
  now = 101;
  progress.caseStarted("matmul", "fp32 n=64");
  now = 111;
  progress.caseStarted("matmul", "bf16 n=64");
  progress.finish();
  EXPECT_EQ(out.str(),
            "\r\x1b[Kcase 1 of 3 | 0:01 elapsed | estimate after the first case | matmul fp32 n=64"
            "\r\x1b[Kcase 2 of 3 | 0:11 elapsed | about 0:22 left | matmul bf16 n=64"
            "\r\x1b[K");
}

TEST(TerminalProgress, NothingIsErasedWhereNothingWasShown) {
  std::ostringstream out;
  TerminalProgress progress(out, [] { return 0.0; });
  progress.start(0);
  progress.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(TerminalProgress, TerminalsAreToldFromFilesAndPipes) {
  EXPECT_TRUE(TerminalProgress::isTerminalPath("/dev/pts/3"));
  EXPECT_TRUE(TerminalProgress::isTerminalPath("/dev/tty1"));
  EXPECT_FALSE(TerminalProgress::isTerminalPath("pipe:[48213]"));
  EXPECT_FALSE(TerminalProgress::isTerminalPath("/dev/null"));
  EXPECT_FALSE(TerminalProgress::isTerminalPath("/tmp/job.log"));
}

}  // namespace
}  // namespace splitstep
