#include "analysis/CaseResult.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

Sample timed(const std::string& name, std::vector<double> values) {
  Sample s;
  s.suite = "allreduce";
  s.case_name = name;
  s.series = "allreduce";
  s.clock = "fake";
  s.values = std::move(values);
  s.rates = {{"algbw GB/s", 1e9, 1e9}};
  s.checks = {{"sum", 100, 0}};
  return s;
}

TEST(CaseResult, AcrossRanksSummarizesPerRankMediansAndNamesTheSlowest) {
  // Per-rank medians: rank 0 -> 2, rank 1 -> 4, rank 2 -> 3.
  const std::vector<std::vector<Sample>> by_rank = {
      {timed("1 GiB", {1, 2, 3})}, {timed("1 GiB", {4, 4, 9})}, {timed("1 GiB", {3, 3, 3})}};
  const auto results = summarizeCases(by_rank);
  ASSERT_EQ(results.size(), 1u);
  const CaseResult& c = results[0];
  ASSERT_EQ(c.ranks.size(), 3u);
  EXPECT_DOUBLE_EQ(c.ranks[1].summary.median, 4);
  EXPECT_DOUBLE_EQ(c.across.min, 2);
  EXPECT_DOUBLE_EQ(c.across.median, 3);
  EXPECT_DOUBLE_EQ(c.across.max, 4);
  EXPECT_EQ(c.slowest_rank, 1);
  // 1e9 bytes at the 3 s median: 1/3 GB/s.
  ASSERT_EQ(c.rates.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rates[0].value, 1.0 / 3.0);
  EXPECT_EQ(c.checked, 300u);
  EXPECT_EQ(c.wrong, 0u);
}

TEST(CaseResult, CasesKeepRankZerosOrderAndMatchByName) {
  const std::vector<std::vector<Sample>> by_rank = {{timed("8 B", {1}), timed("1 KiB", {2})},
                                                    {timed("1 KiB", {5}), timed("8 B", {6})}};
  const auto results = summarizeCases(by_rank);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].case_name, "8 B");
  EXPECT_DOUBLE_EQ(results[0].ranks[1].summary.median, 6);
  EXPECT_EQ(results[1].case_name, "1 KiB");
  EXPECT_DOUBLE_EQ(results[1].ranks[1].summary.median, 5);
}

TEST(CaseResult, WrongElementsAddUpOverRanks) {
  Sample bad = timed("8 B", {1});
  bad.checks = {{"sum", 2, 1}};
  const auto results = summarizeCases({{timed("8 B", {1})}, {bad}});
  EXPECT_EQ(results[0].checked, 102u);
  EXPECT_EQ(results[0].wrong, 1u);
}

TEST(CaseResult, CaseWithoutValuesIsSkippedAndKeepsItsNotes) {
  Sample skipped = timed("tf32 n=128", {});
  skipped.notes = {"skipped: no tensor cores"};
  const auto results = summarizeCases({{skipped}, {skipped}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].skipped());
  EXPECT_EQ(results[0].slowest_rank, -1);
  EXPECT_EQ(results[0].notes, (std::vector<std::string>{"skipped: no tensor cores"}));
}

}  // namespace
}  // namespace splitstep
