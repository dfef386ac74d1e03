#include "collect/TimelineCodec.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace splitstep {
namespace {

TEST(TimelineCodec, SpansAndReadingsSurviveTheRoundTrip) {
  RankTimeline timeline;
  timeline.spans = {{Track::Comm,
                     "collective",
                     "allreduce bucket 1 (25 MiB)",
                     "step mlp bf16 overlap",
                     {12.5, 12.75}}};
  TelemetryReading clocks;
  clocks.time = 12.6;
  clocks.set(TelemetryQuantity::SmClock, 1590);
  clocks.set(TelemetryQuantity::Power, 688.5);
  clocks.clock_limits = 0x4;
  TelemetryReading pcie;
  pcie.time = 12.7;
  pcie.set(TelemetryQuantity::PcieRx, 21.5);
  timeline.readings = {clocks, pcie};
  timeline.clock_offset = -3.25;
  timeline.clock_uncertainty = 2e-6;

  const RankTimeline back = decodeTimeline(encodeTimeline(timeline));
  ASSERT_EQ(back.spans.size(), 1u);
  const TimelineSpan& span = back.spans[0];
  EXPECT_EQ(span.track, Track::Comm);
  EXPECT_EQ(span.kind, "collective");
  EXPECT_EQ(span.name, "allreduce bucket 1 (25 MiB)");
  EXPECT_EQ(span.label, "step mlp bf16 overlap");
  EXPECT_DOUBLE_EQ(span.span.start, 12.5);
  EXPECT_DOUBLE_EQ(span.span.end, 12.75);
  ASSERT_EQ(back.readings.size(), 2u);
  EXPECT_DOUBLE_EQ(back.readings[0].time, 12.6);
  EXPECT_DOUBLE_EQ(back.readings[0].value(TelemetryQuantity::Power), 688.5);
  EXPECT_EQ(back.readings[0].clock_limits, std::optional<std::uint64_t>(0x4));
  EXPECT_FALSE(back.readings[0].has(TelemetryQuantity::Temperature));
  EXPECT_FALSE(back.readings[1].clock_limits);
  EXPECT_DOUBLE_EQ(back.readings[1].value(TelemetryQuantity::PcieRx), 21.5);
  EXPECT_FALSE(back.readings[1].has(TelemetryQuantity::SmClock));
  EXPECT_DOUBLE_EQ(back.clock_offset, -3.25);
  EXPECT_DOUBLE_EQ(back.clock_uncertainty, 2e-6);
}

TEST(TimelineCodec, AnUnknownTrackIsRefused) {
  EXPECT_THROW(decodeTimeline(R"({"spans": [[7, "case", "a", "", 1, 2]], "readings": [],
                                  "clock_offset": 0, "clock_uncertainty": 0})"),
               std::invalid_argument);
}

}  // namespace
}  // namespace splitstep
