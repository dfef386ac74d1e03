#include "telemetry/TelemetrySummary.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

constexpr std::uint64_t kPowerCapBit = 0x4;
constexpr std::uint64_t kIdleBit = 0x1;

TelemetryReading at(double time, double sm_mhz, double power_w, std::uint64_t limits) {
  TelemetryReading r;
  r.time = time;
  r.set(TelemetryQuantity::SmClock, sm_mhz);
  r.set(TelemetryQuantity::Power, power_w);
  r.clock_limits = limits;
  return r;
}

// A PCIe reading: another source, with neither clocks nor limits.
TelemetryReading pcie(double time, double tx) {
  TelemetryReading r;
  r.time = time;
  r.set(TelemetryQuantity::PcieTx, tx);
  return r;
}

TEST(TelemetrySummary, OnlyReadingsInsideTheWindowsCount) {
  const std::vector<TelemetryReading> readings = {
      at(0.5, 1980, 300, 0),             // before the first window
      at(1.0, 1500, 690, kPowerCapBit),  // on the first window's start: inside
      at(1.5, 1400, 700, kPowerCapBit),
      at(2.5, 1980, 200, kIdleBit),  // between the windows
      at(3.0, 1600, 650, 0),         // on the second window's end: inside
      at(3.5, 1980, 100, 0)};        // after the last
  const TelemetrySummary s = summarizeTelemetry(readings, {{2.8, 3.0}, {1.0, 2.0}});
  EXPECT_EQ(s.readings, 3u);
  const TelemetryRange* clock = s.range(TelemetryQuantity::SmClock);
  ASSERT_NE(clock, nullptr);
  EXPECT_EQ(clock->n, 3u);
  EXPECT_DOUBLE_EQ(clock->min, 1400);
  EXPECT_DOUBLE_EQ(clock->max, 1600);
  EXPECT_DOUBLE_EQ(clock->mean, 1500);
  EXPECT_DOUBLE_EQ(s.range(TelemetryQuantity::Power)->mean, 680);
  EXPECT_EQ(s.range(TelemetryQuantity::Temperature), nullptr);  // never read
  EXPECT_EQ(s.limit_readings, 3u);
  EXPECT_DOUBLE_EQ(s.limitShare("power cap"), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.limitShare("idle"), 0);  // it held only between the windows
  EXPECT_EQ(s.clock_limits.count("idle"), 0u);
}

TEST(TelemetrySummary, OverlappingWindowsCountAReadingOnce) {
  const std::vector<TelemetryReading> readings = {at(1.5, 1500, 600, 0), at(4, 1700, 600, 0)};
  // The reading at 1.5 lies in both of the first two windows; the short one inside the long one
  // must not hide it.
  const TelemetrySummary s = summarizeTelemetry(readings, {{1.0, 2.0}, {1.1, 1.2}, {3.9, 4.1}});
  EXPECT_EQ(s.readings, 2u);
  EXPECT_DOUBLE_EQ(s.range(TelemetryQuantity::SmClock)->mean, 1600);
}

TEST(TelemetrySummary, QuantitiesOfOtherSourcesAreAveragedOverTheirOwnReadings) {
  const std::vector<TelemetryReading> readings = {at(1.0, 1500, 600, kPowerCapBit), pcie(1.1, 20),
                                                  at(1.2, 1700, 600, 0), pcie(1.3, 30)};
  const TelemetrySummary s = summarizeTelemetry(readings, {{0.0, 2.0}});
  EXPECT_EQ(s.readings, 4u);
  EXPECT_EQ(s.range(TelemetryQuantity::SmClock)->n, 2u);
  EXPECT_DOUBLE_EQ(s.range(TelemetryQuantity::PcieTx)->mean, 25);
  EXPECT_EQ(s.limit_readings, 2u);  // the PCIe readings carry no clock limits
  EXPECT_DOUBLE_EQ(s.limitShare("power cap"), 0.5);
}

TEST(TelemetrySummary, NoWindowOrNoReadingInsideIsEmpty) {
  const std::vector<TelemetryReading> readings = {at(1.0, 1500, 600, 0)};
  EXPECT_TRUE(summarizeTelemetry(readings, {}).empty());
  EXPECT_TRUE(summarizeTelemetry(readings, {{2.0, 3.0}}).empty());
  EXPECT_TRUE(summarizeTelemetry({}, {{0.0, 3.0}}).empty());
  EXPECT_TRUE(summarizeTelemetry(readings, {{1.5, 0.5}}).empty());  // an inverted window
}

}  // namespace
}  // namespace splitstep
