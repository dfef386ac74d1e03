#include "report/ConsoleReporter.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "ReportFixtures.hpp"

namespace splitstep {
namespace {

std::string render() {
  std::ostringstream out;
  ConsoleReporter reporter(out);
  reporter.reportContext(testing::twoRankContext());
  for (const CaseResult& c : testing::matmulCases()) reporter.reportCase(c);
  reporter.finalize();
  return out.str();
}

bool hasLine(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern, std::regex::multiline));
}

TEST(ConsoleReporter, HeaderNamesVersionsRanksAndTheTimingPlan) {
  const std::string text = render();
  EXPECT_TRUE(hasLine(text, "^splitstep 0\\.1\\.0 \\(abc123\\) \\| 2 rank\\(s\\) on 1 node\\(s\\)"))
      << text;
  EXPECT_TRUE(
      hasLine(text, "LibTorch 2\\.11\\.0 \\| CUDA 13\\.0 \\(driver 13\\.0\\) \\| NCCL 2\\.28\\.3"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  rank 1: nodeA cuda:1 NVIDIA H200$")) << text;
  EXPECT_TRUE(hasLine(text, "1 untimed warm-up run\\(s\\), then 2 sample\\(s\\) of 1 loop"))
      << text;
}

TEST(ConsoleReporter, CaseRowShowsSpreadSlowestRankRateAndPerRankMedians) {
  const std::string text = render();
  EXPECT_TRUE(hasLine(text, "^matmul \\[device \\(CUDA events\\)\\]$")) << text;
  EXPECT_TRUE(hasLine(text, "^  case +min +median +max +slowest +TFLOP/s +per-rank median$"))
      << text;
  // Medians 1.369 ms (rank 0) and 1.381 ms (rank 1); across-rank median 1.375 ms.
  EXPECT_TRUE(
      hasLine(text,
              "^  bf16 n=8192 +1\\.369 ms +1\\.375 ms +1\\.381 ms +r1 nodeA cuda:1 +799\\.6 "
              "+r0 1\\.369 ms  r1 1\\.381 ms$"))
      << text;
}

TEST(ConsoleReporter, SkippedCasesAppearAsNotes) {
  const std::string text = render();
  EXPECT_TRUE(hasLine(text, "^  note \\(tf32 n=8192\\): skipped: for a test$")) << text;
  EXPECT_FALSE(hasLine(text, "^  tf32 n=8192 ")) << text;
}

}  // namespace
}  // namespace splitstep
