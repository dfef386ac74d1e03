#include "telemetry/TelemetrySummary.hpp"

#include <algorithm>
#include <array>
#include <iterator>

namespace splitstep {
namespace {

// Sorted and merged, so that one binary search finds the window a time may lie in.
std::vector<HostSpan> disjoint(std::vector<HostSpan> windows) {
  std::sort(windows.begin(), windows.end(),
            [](const HostSpan& a, const HostSpan& b) { return a.start < b.start; });
  std::vector<HostSpan> merged;
  for (const HostSpan& w : windows) {
    if (w.end < w.start) continue;
    if (!merged.empty() && w.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, w.end);
    } else {
      merged.push_back(w);
    }
  }
  return merged;
}

bool inside(const std::vector<HostSpan>& merged, double time) {
  const auto after = std::upper_bound(merged.begin(), merged.end(), time,
                                      [](double t, const HostSpan& w) { return t < w.start; });
  return after != merged.begin() && time <= std::prev(after)->end;
}

}  // namespace

const TelemetryRange* TelemetrySummary::range(TelemetryQuantity quantity) const {
  const auto it = ranges.find(std::string(toString(quantity)));
  return it == ranges.end() ? nullptr : &it->second;
}

double TelemetrySummary::limitShare(std::string_view limit) const {
  const auto it = clock_limits.find(std::string(limit));
  return it == clock_limits.end() ? 0 : it->second;
}

TelemetrySummary summarizeTelemetry(const std::vector<TelemetryReading>& readings,
                                    std::vector<HostSpan> windows) {
  const std::vector<HostSpan> merged = disjoint(std::move(windows));
  TelemetrySummary summary;
  std::array<double, kTelemetryQuantities> sums{};
  std::map<std::string, std::size_t> held;
  if (merged.empty()) return summary;
  // Readings before the first window and after the last cannot be inside.
  const auto first =
      std::lower_bound(readings.begin(), readings.end(), merged.front().start,
                       [](const TelemetryReading& r, double t) { return r.time < t; });
  for (auto it = first; it != readings.end() && it->time <= merged.back().end; ++it) {
    const TelemetryReading& r = *it;
    if (!inside(merged, r.time)) continue;
    ++summary.readings;
    for (const auto& [quantity, name] : EnumNames<TelemetryQuantity>::values) {
      if (!r.has(quantity)) continue;
      const double value = r.value(quantity);
      auto [range, added] = summary.ranges.try_emplace(std::string(name));
      TelemetryRange& q = range->second;
      q.min = added ? value : std::min(q.min, value);
      q.max = added ? value : std::max(q.max, value);
      ++q.n;
      sums[static_cast<std::size_t>(quantity)] += value;
    }
    if (r.clock_limits) {
      ++summary.limit_readings;
      for (const ClockLimit& limit : kClockLimits) {
        if ((*r.clock_limits & limit.bit) != 0) ++held[std::string(limit.name)];
      }
    }
  }
  for (const auto& [quantity, name] : EnumNames<TelemetryQuantity>::values) {
    const auto range = summary.ranges.find(std::string(name));
    if (range != summary.ranges.end()) {
      range->second.mean =
          sums[static_cast<std::size_t>(quantity)] / static_cast<double>(range->second.n);
    }
  }
  for (const auto& [name, count] : held) {
    summary.clock_limits[name] =
        static_cast<double>(count) / static_cast<double>(summary.limit_readings);
  }
  return summary;
}

}  // namespace splitstep
