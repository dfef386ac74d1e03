#include "measure/StoppingRule.hpp"

#include <algorithm>
#include <cmath>

#include "stats/Statistics.hpp"

namespace splitstep {

double relativeNoise(std::span<const double> values) {
  if (values.size() < 2) return 0;
  return summarize(values).cv;
}

StopState evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds) {
  const auto n = static_cast<int>(values.size());
  if (settings.samples > 0) return n >= settings.samples ? StopState::Done : StopState::Continue;
  if (wall_seconds >= settings.max_time) return StopState::TimeLimit;
  if (n < settings.min_samples || timed_seconds < settings.min_time) return StopState::Continue;
  return relativeNoise(values) <= settings.max_noise ? StopState::Done : StopState::Continue;
}

int nextLoopCount(int loops, double sample_seconds, double target_seconds, int max_loops) {
  if (sample_seconds >= target_seconds || loops >= max_loops) return loops;
  const double wanted = sample_seconds > 0 ? loops * target_seconds / sample_seconds * 1.2
                                           : static_cast<double>(loops) * 100;
  const double bounded = std::clamp(std::ceil(wanted), 2.0 * loops, 100.0 * loops);
  return static_cast<int>(std::min(bounded, static_cast<double>(max_loops)));
}

}  // namespace splitstep
