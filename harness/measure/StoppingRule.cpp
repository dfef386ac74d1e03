#include "measure/StoppingRule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/MedianInterval.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {
namespace {

// How far the interval of `values`' median reaches from it, in seconds, on its wider side.
double absoluteReach(std::span<const double> values) {
  const double median = quantile(values, 0.5);
  const MedianInterval interval = medianInterval(values, kMedianConfidence);
  return std::max(median - interval.low, interval.high - median);
}

}  // namespace

double relativeNoise(std::span<const double> values) {
  if (values.size() < 2) return 0;
  return summarize(values).cv;
}

double medianUncertainty(std::span<const double> values) {
  if (values.empty()) return std::numeric_limits<double>::infinity();
  const MedianInterval interval = medianInterval(values, kMedianConfidence);
  // Too few values for a 95% interval: the estimate's uncertainty is not known yet.
  if (interval.coverage < kMedianConfidence) return std::numeric_limits<double>::infinity();
  return relativeReach(interval, quantile(values, 0.5));
}

bool noiseStable(std::span<const double> values) {
  const std::size_t n = values.size();
  if (n < kStableMinSamples) return false;
  // The noise after each sample of the latter half, from running sums (Welford), in one pass.
  const std::size_t window_start = n - n / 2;
  std::vector<double> window;
  window.reserve(n / 2 + 1);
  double mean = 0;
  double squares = 0;
  for (std::size_t k = 1; k <= n; ++k) {
    const double x = values[k - 1];
    const double delta = x - mean;
    mean += delta / static_cast<double>(k);
    squares += delta * (x - mean);
    if (k >= window_start && k >= 2 && mean != 0) {
      window.push_back(std::sqrt(squares / static_cast<double>(k - 1)) / mean);
    }
  }
  if (window.size() < 2) return false;
  const double current = window.back();
  // A series without noise meets any noise target; there is nothing to stabilise.
  if (current <= 0) return false;
  // nvbench: the standard deviation of the estimates around the current one, relative to it.
  double deviations = 0;
  for (double noise : window) deviations += (noise - current) * (noise - current);
  const double spread = std::sqrt(deviations / static_cast<double>(window.size() - 1)) / current;
  return spread <= kStableNoiseSpread;
}

double medianDrift(std::span<const double> values, double negligible) {
  const std::size_t half = values.size() / 2;
  if (half == 0) return 0;
  const std::span<const double> first = values.first(half);
  const std::span<const double> second = values.last(half);
  const double moved = std::abs(quantile(second, 0.5) - quantile(first, 0.5));
  const double median = std::abs(quantile(values, 0.5));
  const bool drifts = moved > negligible * median &&
                      moved > std::hypot(absoluteReach(first), absoluteReach(second));
  return drifts && median > 0 ? moved / median : 0;
}

bool drifting(std::span<const double> values, double negligible) {
  return medianDrift(values, negligible) > 0;
}

bool isCheckpoint(std::size_t n) {
  // Between 2^k and 2^(k + 1) samples, every 2^k / kCheckpointsPerDoubling-th.
  return n <= kJudgeEverySampleUpTo || n % (std::bit_floor(n) / kCheckpointsPerDoubling) == 0;
}

StopCheck evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds) {
  const std::size_t n = values.size();
  if (settings.samples > 0) {
    return n >= static_cast<std::size_t>(settings.samples)
               ? StopCheck{StopState::Done, StopRule::Fixed, 0}
               : StopCheck{};
  }
  if (wall_seconds >= settings.max_time) {
    // Whether the median was still moving says why no other rule could end sampling.
    return {StopState::TimeLimit, StopRule::TimeLimit, medianDrift(values, settings.ci_target)};
  }
  if (n < static_cast<std::size_t>(settings.min_samples) || timed_seconds < settings.min_time ||
      !isCheckpoint(n)) {
    return {};
  }
  const double noise = relativeNoise(values);
  if (noise <= settings.max_noise) return {StopState::Done, StopRule::NoiseTarget, noise};
  // Where the median still moves, neither its interval nor a stable noise means it is known.
  if (drifting(values, settings.ci_target)) return {};
  const double uncertainty = medianUncertainty(values);
  if (uncertainty <= settings.ci_target) {
    return {StopState::Done, StopRule::Converged, uncertainty};
  }
  const double samples_to_target =
      (uncertainty / settings.ci_target) * (uncertainty / settings.ci_target);
  if (samples_to_target > kOutOfReachSampleFactor && noiseStable(values)) {
    return {StopState::Done, StopRule::NoiseStable, noise};
  }
  return {};
}

std::string stopReason(StopRule rule, double figure) {
  switch (rule) {
    case StopRule::None:
      return "no samples";
    case StopRule::Fixed:
      return "fixed sample count";
    case StopRule::TimeLimit:
      return figure > 0 ? fmt::format(
                              "max-time reached, the median still moving ({:.1f}% between the "
                              "first and second half of the samples)",
                              figure * 100)
                        : "max-time reached";
    case StopRule::Converged:
      return fmt::format("estimate converged (median ±{:.2f}% at {:g}%)", figure * 100,
                         kMedianConfidence * 100);
    case StopRule::NoiseTarget:
      return fmt::format("noise target met (std/mean {:.2f}%)", figure * 100);
    case StopRule::NoiseStable:
      return fmt::format("noise stable (std/mean {:.2f}%)", figure * 100);
  }
  return "?";
}

int nextLoopCount(int loops, double sample_seconds, double target_seconds, int max_loops) {
  if (sample_seconds >= target_seconds || loops >= max_loops) return loops;
  const double wanted = sample_seconds > 0 ? loops * target_seconds / sample_seconds * 1.2
                                           : static_cast<double>(loops) * 100;
  const double bounded = std::clamp(std::ceil(wanted), 2.0 * loops, 100.0 * loops);
  return static_cast<int>(std::min(bounded, static_cast<double>(max_loops)));
}

}  // namespace splitstep
