#include "derived/CaseResult.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

Sample timed(const std::string& name, std::vector<double> values) {
  Sample s;
  s.suite = "allreduce";
  s.case_name = name;
  s.series = "allreduce";
  s.measurement.clock = "fake";
  s.measurement.values = std::move(values);
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

// A group's case that rank 0 did not run (--groups): the fields are those of the group's lowest
// rank, which learnt NCCL's choice while measuring it.
TEST(CaseResult, FieldsComeFromTheLowestRankThatMeasured) {
  Sample outside = timed("group 1", {});
  outside.fields = {"collective", {{"backend", std::string("nccl")}}};
  Sample first = timed("group 1", {2});
  first.fields = {"collective", {{"nccl_algorithm", std::string("RING")}}};
  Sample second = timed("group 1", {3});
  second.fields = {"collective", {{"nccl_algorithm", std::string("TREE")}}};
  const auto results = summarizeCases({{outside}, {first}, {second}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fields, first.fields);
  // A case no rank measured keeps the first rank's.
  const auto skipped = summarizeCases({{outside}, {timed("group 1", {})}});
  EXPECT_EQ(skipped[0].fields, outside.fields);
}

TEST(CaseResult, BandwidthRatesUseDecimalGigabytes) {
  // The reference table: 1 GiB in 3328.66 us is 322.58 GB/s (algbw, 1 GB = 1e9 B).
  Sample s = timed("1 GiB", {3328.66e-6});
  s.rates = {{"algbw GB/s", 1073741824.0, 1e9}};
  const auto results = summarizeCases({{s}});
  ASSERT_EQ(results[0].rates.size(), 1u);
  EXPECT_NEAR(results[0].rates[0].value, 322.58, 0.01);
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

TEST(CaseResult, SpeedupIsTheBaselinesMedianOverTheCases) {
  Sample fp32 = timed("fp32 n=64", {4});
  fp32.comparison = {"64", "fp32", true};
  Sample bf16 = timed("bf16 n=64", {1});
  bf16.comparison = {"64", "fp32", false};
  Sample other = timed("bf16 n=128", {1});
  other.comparison = {"128", "fp32", false};  // no baseline of its shape
  const auto results = summarizeCases({{fp32, bf16, other}});
  ASSERT_TRUE(results[0].speedup && results[1].speedup);
  EXPECT_DOUBLE_EQ(*results[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(*results[1].speedup, 4.0);
  EXPECT_EQ(results[1].speedup_baseline, "fp32");
  EXPECT_FALSE(results[2].speedup);
}

TEST(CaseResult, WarnsOfALowClockAndOfAWideSpread) {
  Measurement m;
  m.clock_at_start = SmClock{1980, 1980, ""};
  m.clock_at_end = SmClock{1600, 1980, "power cap"};  // 81% of the maximum
  const std::vector<double> spread = {1, 4.5};
  const auto warnings = measurementWarnings(m, summarize(spread));
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0],
            "SM clock 1600 MHz is below 85% of its 1980 MHz maximum (held down by power cap)");
  EXPECT_EQ(warnings[1].rfind("the slowest sample took 4.5x the fastest", 0), 0u);

  Measurement fine;
  fine.clock_at_start = SmClock{1700, 1980, ""};  // 86%
  EXPECT_TRUE(measurementWarnings(fine, summarize(std::vector<double>{1, 3.9})).empty());
}

TEST(CaseResult, CaseWarningsNameTheRanksOnce) {
  Sample cool = timed("bf16 n=8192", {1, 1.1});
  cool.measurement.clock_at_start = SmClock{1980, 1980, ""};
  Sample hot = cool;
  hot.measurement.clock_at_end = SmClock{1470, 1980, "power cap"};
  Sample hotter = cool;
  hotter.measurement.clock_at_start = SmClock{1410, 1980, "power cap"};
  hotter.measurement.values = {1, 5};
  const auto results = summarizeCases({{cool}, {hot}, {hotter}});
  EXPECT_EQ(results[0].warnings,
            (std::vector<CaseWarning>{
                {WarningKind::LowClock,
                 "SM clock 1410-1470 MHz on rank(s) 1, 2, below 85% of the 1980 MHz maximum "
                 "(held down by power cap)"},
                {WarningKind::WideSpread,
                 "the slowest sample took up to 5.0x the fastest on rank(s) 2: a result may be "
                 "cached or disturbed"}}));
}

TEST(CaseResult, MeasurerNotesAreCollectedOnceAcrossRanks) {
  Sample a = timed("8 B", {1});
  a.measurement.notes = {"CUDA graph capture failed (x); timed without a graph"};
  const auto results = summarizeCases({{a}, {a}});
  EXPECT_EQ(results[0].notes, a.measurement.notes);
}

Sample phase(const std::string& name, const std::string& series, const std::string& part_of,
             std::vector<double> values) {
  Sample s = timed(name, std::move(values));
  s.suite = "step";
  s.series = series;
  s.part_of = part_of;
  s.rates = {};
  s.checks = {};
  return s;
}

TEST(CaseResult, APartsShareIsItsMedianOverItsWholesMedian) {
  // "a": step medians 10 and 12 (across-rank median 11), forward 4 and 5 (4.5): 4.5 / 11.
  // "b": its whole was skipped. "c": its whole was not reported at all.
  const std::vector<std::vector<Sample>> by_rank = {
      {phase("a", "forward", "step", {4}), phase("a", "step", "", {10}), phase("b", "step", "", {}),
       phase("b", "forward", "step", {1}), phase("c", "forward", "step", {1})},
      {phase("a", "forward", "step", {5}), phase("a", "step", "", {12}), phase("b", "step", "", {}),
       phase("b", "forward", "step", {1}), phase("c", "forward", "step", {1})}};
  const auto results = summarizeCases(by_rank);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].part_of, "step");
  ASSERT_TRUE(results[0].share);
  EXPECT_DOUBLE_EQ(*results[0].share, 4.5 / 11);
  EXPECT_EQ(results[1].part_of, "");
  EXPECT_FALSE(results[1].share);  // a whole
  EXPECT_FALSE(results[3].share);  // its whole was skipped
  EXPECT_FALSE(results[4].share);  // no whole
}

TEST(CaseResult, BatchesAreSummarisedWithTheBaselinesAndWholesOfEarlierOnes) {
  CaseSummarizer summarizer;
  Sample baseline = timed("fp32", {2});
  baseline.comparison = {"8192", "fp32", true};
  Sample faster = timed("bf16", {0.5});
  faster.comparison = {"8192", "fp32", false};
  // The baseline comes in a batch of its own, as a streamed run publishes it.
  ASSERT_EQ(summarizer.add({{baseline}, {baseline}}).size(), 1u);
  const auto second = summarizer.add({{faster}, {faster}});
  ASSERT_EQ(second.size(), 1u);
  ASSERT_TRUE(second[0].speedup);
  EXPECT_DOUBLE_EQ(*second[0].speedup, 4);
  // A case already reported is not reported again.
  EXPECT_TRUE(summarizer.add({{faster}, {faster}}).empty());
  // A part finds its whole in an earlier batch.
  summarizer.add({{phase("a", "step", "", {10})}});
  const auto part = summarizer.add({{phase("a", "forward", "step", {4})}});
  ASSERT_EQ(part.size(), 1u);
  ASSERT_TRUE(part[0].share);
  EXPECT_DOUBLE_EQ(*part[0].share, 0.4);
}

TEST(CaseResult, NoHostSummaryWithoutHostValues) {
  Sample with_host = timed("a", {1, 2});
  with_host.measurement.host_values = {0.5, 0.5};
  const auto results = summarizeCases({{with_host, phase("b", "forward", "step", {1})}});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0].ranks[0].host_summary);
  EXPECT_DOUBLE_EQ(results[0].ranks[0].host_summary->median, 0.5);
  // A phase of a step: no host time was taken, and none is made up (it read as 0 s).
  EXPECT_FALSE(results[1].ranks[0].host_summary);
}

TEST(CaseResult, OnlyWholesWarnOfAWideSpread) {
  // The same 5x spread in a step and in one of its phases: only the step warns.
  const auto results =
      summarizeCases({{phase("a", "step", "", {1, 5}), phase("a", "loss", "step", {1, 5})}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].warnings.size(), 1u);
  EXPECT_TRUE(results[1].warnings.empty());
}

TEST(CaseResult, APartIsMatchedToTheWholeOfItsOwnCaseAndSuite) {
  Sample other_suite = phase("a", "step", "", {1});
  other_suite.suite = "other";
  const auto results =
      summarizeCases({{phase("a", "step", "", {8}), other_suite, phase("b", "step", "", {2}),
                       phase("a", "data", "step", {2})}});
  ASSERT_TRUE(results[3].share);
  EXPECT_DOUBLE_EQ(*results[3].share, 0.25);
}

TelemetrySummary heldDown(double power_cap, double thermal) {
  TelemetrySummary t;
  t.readings = 120;
  t.limit_readings = 120;
  t.ranges["sm_clock_mhz"] = {120, 1455, 1590, 1980};
  t.ranges["power_w"] = {120, 640, 689, 702};
  t.ranges["power_limit_w"] = {120, 700, 700, 700};
  t.clock_limits = {{"power cap", power_cap}, {"idle", 0.5}};
  if (thermal > 0) t.clock_limits["thermal (software)"] = thermal;
  return t;
}

TEST(CaseResult, TelemetryWarnsOfAClockHeldDownByALimit) {
  EXPECT_EQ(telemetryWarnings(heldDown(0.85, 0.12)),
            (std::vector<std::string>{
                "GPU clock held down: power cap in 85% of 120 telemetry readings, thermal "
                "(software) in 12%; SM clock 1590 MHz mean, 1455-1980; power 689 W mean against "
                "a 700 W limit"}));
  // Below 10% a limit is no warning, and idle never is: a GPU waiting for work is not slowed.
  EXPECT_TRUE(telemetryWarnings(heldDown(0.05, 0)).empty());
}

TEST(CaseResult, CaseTelemetryWarningNamesTheRanksAndTheLargestShare) {
  Sample calm = timed("bf16 n=8192", {1, 1.1});
  calm.telemetry = heldDown(0.02, 0);
  Sample capped = calm;
  capped.telemetry = heldDown(0.85, 0);
  capped.telemetry->ranges["sm_clock_mhz"].mean = 1520;
  Sample capped_more = calm;
  capped_more.telemetry = heldDown(0.95, 0);
  const auto results = summarizeCases({{calm}, {capped}, {capped_more}});
  EXPECT_EQ(results[0].warnings,
            (std::vector<CaseWarning>{
                {WarningKind::ClockHeld,
                 "GPU clock held down on rank(s) 1, 2: power cap in up to 95% of the telemetry "
                 "readings; lowest mean SM clock 1520 MHz; power 689 W mean against a 700 W "
                 "limit"}}));
  EXPECT_EQ(results[0].ranks[0].warnings.size(), 0u);
  ASSERT_EQ(results[0].ranks[2].warnings.size(), 1u);
  EXPECT_EQ(results[0].ranks[2].warnings[0].rfind("GPU clock held down: power cap in 95%", 0), 0u);
  ASSERT_TRUE(results[0].ranks[1].telemetry);
  EXPECT_DOUBLE_EQ(results[0].ranks[1].telemetry->limitShare("power cap"), 0.85);
}

}  // namespace
}  // namespace splitstep
