// What the telemetry said while something ran: per quantity the lowest, mean and highest
// reading, and how often each clock limit held. Pure functions over readings and time windows.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "common/HostClock.hpp"
#include "telemetry/TelemetryReading.hpp"

namespace splitstep {

struct TelemetryRange {
  std::size_t n = 0;  // readings that held the quantity
  double min = 0;
  double mean = 0;
  double max = 0;
};

struct TelemetrySummary {
  std::size_t readings = 0;                      // readings inside the windows, of any source
  std::map<std::string, TelemetryRange> ranges;  // by quantity name, for those read at least once
  // By clock limit name (kClockLimits): the fraction of the readings that carried the limits in
  // which it held; only limits that held at least once.
  std::map<std::string, double> clock_limits;
  std::size_t limit_readings = 0;  // readings that carried the clock limits

  bool empty() const { return readings == 0; }
  const TelemetryRange* range(TelemetryQuantity quantity) const;
  double limitShare(std::string_view limit) const;  // 0 where it never held
};

// Readings whose time lies within one of `windows` (each closed, in any order, overlaps
// allowed). `readings` must be in time order.
TelemetrySummary summarizeTelemetry(const std::vector<TelemetryReading>& readings,
                                    std::vector<HostSpan> windows);

}  // namespace splitstep
