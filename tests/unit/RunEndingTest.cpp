#include "fault/RunEnding.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace splitstep {
namespace {

TEST(RunEnding, EndsOnceWritingTheReportAndOneLine) {
  RunEnding ending;
  ending.setLabel("rank 0 on node7");
  std::vector<std::string> reports;
  ending.setEarlyReport([&reports](const std::string& reason) { reports.push_back(reason); });
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(ending.end("rank 1 (node7) did not answer", "rank 1 (node7) did not answer"));
  EXPECT_FALSE(ending.end("a second reason", "a second line"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "splitstep: rank 0 on node7: rank 1 (node7) did not answer\n");
  EXPECT_EQ(reports, (std::vector<std::string>{"rank 1 (node7) did not answer"}));
}

TEST(RunEnding, ACompletedRunDoesNotEndAgain) {
  RunEnding ending;
  bool reported = false;
  ending.setEarlyReport([&reported](const std::string&) { reported = true; });
  ending.completed();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(ending.end("late signal", "late signal"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(reported);
}

TEST(RunEnding, AReportThatCannotBeWrittenIsSaidOnTheSameLine) {
  RunEnding ending;
  ending.setLabel("rank 0 on node7");
  ending.setEarlyReport([](const std::string&) { throw std::runtime_error("disk full"); });
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(ending.end("reason", "timed out"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "splitstep: rank 0 on node7: timed out (and the results could not be written: "
            "disk full)\n");
}

TEST(RunEnding, ASignalEndsWithItsReasonAndStatus) {
  EXPECT_EXIT(
      {
        RunEnding ending;
        ending.setLabel("rank 2 on node7");
        ending.setInterruptReason(
            [](int signal) { return "interrupted (" + std::to_string(signal) + ") during x"; },
            false);
        ending.endOnSignal(SIGINT);
      },
      ::testing::ExitedWithCode(128 + SIGINT), "splitstep: rank 2 on node7: interrupted \\(2\\)");
}

TEST(RunEnding, TheReasonIsWrittenWhenTheSignalArrivesWhereAsked) {
  RunEnding ending;
  std::string written;
  ending.setEarlyReport([&written](const std::string& reason) { written = reason; });
  const auto reason = [](int signal) { return "interrupted (" + std::to_string(signal) + ")"; };
  ending.setInterruptReason(reason, false);
  ending.endAtSignal(SIGTERM);
  EXPECT_EQ(written, "") << "a rank that writes no results ends at its next wait";
  ending.setInterruptReason(reason, true);
  ::testing::internal::CaptureStderr();
  ending.endAtSignal(SIGTERM);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "splitstep: rank ?: interrupted (15)\n");
  EXPECT_EQ(written, "interrupted (15)");
  EXPECT_FALSE(ending.end("later", "later")) << "the first reason is kept";
}

}  // namespace
}  // namespace splitstep
