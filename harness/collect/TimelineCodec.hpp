// One rank's timeline and telemetry readings, on rank 0's clock, to and from the JSON text they
// travel to rank 0 in (for --trace).
#pragma once

#include <string>
#include <vector>

#include "cluster/ClockSync.hpp"
#include "measure/Timeline.hpp"
#include "telemetry/TelemetryReading.hpp"

namespace splitstep {

struct RankTimeline {
  std::vector<TimelineSpan> spans;         // times on rank 0's clock
  std::vector<TelemetryReading> readings;  // times on rank 0's clock
  double clock_offset = 0;       // seconds this rank's clock was ahead of rank 0's (at start)
  double clock_uncertainty = 0;  // seconds either side, the larger of start and end
};

// This rank's spans and readings on rank 0's clock, the drift between the two offset
// measurements interpolated.
RankTimeline rankTimeline(const Timeline& timeline, std::vector<TelemetryReading> readings,
                          const ClockOffset& start, const ClockOffset& end);

std::string encodeTimeline(const RankTimeline& timeline);
RankTimeline decodeTimeline(const std::string& text);

}  // namespace splitstep
