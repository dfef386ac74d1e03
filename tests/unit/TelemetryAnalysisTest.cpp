#include "derived/TelemetryAnalysis.hpp"

#include <gtest/gtest.h>

#include "ReportFixtures.hpp"

namespace splitstep {
namespace {

TelemetrySummary clockOf(double mhz, double power_cap, std::size_t readings = 20) {
  TelemetrySummary t;
  t.readings = readings;
  t.limit_readings = readings;
  t.ranges["sm_clock_mhz"] = {readings, mhz - 50, mhz, mhz + 50};
  t.ranges["power_w"] = {readings, 600, 680, 700};
  if (power_cap > 0) t.clock_limits["power cap"] = power_cap;
  return t;
}

// mlp bf16 on two ranks, modes none and overlap: the backward phase takes `none_ms` and
// `overlap_ms` and runs at the given SM clocks; the whole step carries telemetry too.
std::vector<CaseResult> backwardCases(double none_ms, double overlap_ms, double none_mhz,
                                      double overlap_mhz) {
  std::vector<Sample> rank0;
  for (const auto& [mode, ms, mhz, cap] : {std::tuple{"none", none_ms, none_mhz, 0.4},
                                           std::tuple{"overlap", overlap_ms, overlap_mhz, 0.9}}) {
    Sample backward = testing::stepSample("mlp", "bf16", mode, "backward", {ms * 1e-3, ms * 1e-3});
    backward.telemetry = clockOf(mhz, cap);
    Sample step = testing::stepSample("mlp", "bf16", mode, "step", {2 * ms * 1e-3, 2 * ms * 1e-3});
    step.telemetry = clockOf(mhz, cap);
    rank0.push_back(backward);
    rank0.push_back(step);
  }
  return summarizeCases({rank0, rank0});
}

const DerivedFigure* figure(const DerivedResult& d, const std::string& tag) {
  for (const DerivedFigure& f : d.figures) {
    if (f.tag == tag) return &f;
  }
  return nullptr;
}

TEST(TelemetryAnalysis, ClockPerPhaseAndModeWithPowerInTheNote) {
  const auto derived = deriveStepTelemetry(backwardCases(27.4, 31.8, 1500, 1425));
  ASSERT_EQ(derived.size(), 1u);
  const DerivedResult& d = derived[0];
  EXPECT_EQ(d.subject, "mlp bf16");
  ASSERT_EQ(d.figures.size(), 4u);
  const DerivedFigure* backward = figure(d, "telemetry/sm_clock/overlap/backward");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->name, "SM clock, backward (overlap)");
  EXPECT_EQ(backward->unit, "MHz");
  EXPECT_DOUBLE_EQ(backward->value, 1425);
  EXPECT_EQ(backward->per_rank, (std::vector<std::pair<int, double>>{{0, 1425}, {1, 1425}}));
  EXPECT_EQ(backward->note, "power 680 W, power cap in 90% of readings (at least 20 per rank)");
  EXPECT_NE(figure(d, "telemetry/sm_clock/none/step"), nullptr);
}

TEST(TelemetryAnalysis, ALowerClockExplainsPartOfTheBackwardSlowdown) {
  // 16% slower with overlap; the clock 5.3% lower: it explains at most 5.3 points.
  const auto derived = deriveStepTelemetry(backwardCases(27.4, 31.8, 1500, 1425));
  ASSERT_EQ(derived[0].findings.size(), 1u);
  EXPECT_EQ(derived[0].findings[0],
            "telemetry: the backward pass runs at 1425 MHz mean SM clock with overlap and 1500 MHz "
            "without sync, the power cap holding in 90% and 40% of the readings: the 5.3% lower "
            "clock accounts for at most 5.3 points of the 16.1% slowdown of backward with "
            "overlap; the rest comes from the collectives' kernels competing for SMs and memory "
            "bandwidth");
}

TEST(TelemetryAnalysis, TheSameClockRefutesThePowerCap) {
  const auto derived = deriveStepTelemetry(backwardCases(27.4, 31.8, 1500, 1497));
  ASSERT_EQ(derived[0].findings.size(), 1u);
  EXPECT_NE(derived[0].findings[0].find("the clock is the same, so the power cap does not explain "
                                        "the 16.1% slowdown"),
            std::string::npos)
      << derived[0].findings[0];
}

TEST(TelemetryAnalysis, AClockLowEnoughExplainsTheWholeSlowdown) {
  const auto derived = deriveStepTelemetry(backwardCases(27.4, 28.0, 1500, 1400));
  ASSERT_EQ(derived[0].findings.size(), 1u);
  EXPECT_NE(derived[0].findings[0].find("a clock 7.1% lower accounts for the whole 2.2% slowdown"),
            std::string::npos)
      << derived[0].findings[0];
}

TEST(TelemetryAnalysis, TooFewReadingsOrARankWithoutTelemetryGiveNoFigure) {
  Sample few = testing::stepSample("mlp", "bf16", "none", "forward", {1e-3});
  few.telemetry = clockOf(1500, 0, kMinPhaseReadings - 1);
  Sample enough = testing::stepSample("mlp", "bf16", "none", "step", {1e-2});
  enough.telemetry = clockOf(1500, 0);
  Sample without = enough;
  without.telemetry.reset();
  EXPECT_TRUE(deriveStepTelemetry(summarizeCases({{few}, {few}})).empty());
  EXPECT_TRUE(deriveStepTelemetry(summarizeCases({{enough}, {without}})).empty());
  const auto one = deriveStepTelemetry(summarizeCases({{few, enough}, {few, enough}}));
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(one[0].figures.size(), 1u);
  EXPECT_EQ(one[0].figures[0].tag, "telemetry/sm_clock/none/step");
  EXPECT_TRUE(one[0].findings.empty());  // no overlap mode to compare with
}

}  // namespace
}  // namespace splitstep
