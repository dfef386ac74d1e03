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

// Whether the medians of kDriftBatches contiguous batches of `values` follow a line whose slope
// is more than kDriftT of its standard errors from zero (least squares over the batch index;
// the error from the residuals about the line, so that a trend does not hide in the spread it
// causes). False where there are too few values for batches of two.
bool trending(std::span<const double> values) {
  if (values.size() < 2 * kDriftBatches) return false;
  std::vector<double> medians;
  for (std::size_t b = 0; b < kDriftBatches; ++b) {
    const std::size_t begin = values.size() * b / kDriftBatches;
    const std::size_t end = values.size() * (b + 1) / kDriftBatches;
    medians.push_back(quantile(values.subspan(begin, end - begin), 0.5));
  }
  const double k = static_cast<double>(kDriftBatches);
  const double mean_x = (k - 1) / 2;
  double mean_y = 0;
  for (double y : medians) mean_y += y / k;
  double sxx = 0;
  double sxy = 0;
  for (std::size_t b = 0; b < kDriftBatches; ++b) {
    const double dx = static_cast<double>(b) - mean_x;
    sxx += dx * dx;
    sxy += dx * (medians[b] - mean_y);
  }
  const double slope = sxy / sxx;
  double residuals = 0;
  for (std::size_t b = 0; b < kDriftBatches; ++b) {
    const double r = medians[b] - mean_y - slope * (static_cast<double>(b) - mean_x);
    residuals += r * r;
  }
  const double error = std::sqrt(residuals / (k - 2) / sxx);
  return std::abs(slope) > kDriftT * error;
}

// Whether the first `found` values lie at another level than the rest: their medians differ by
// more than both 95% intervals allow and by more than `negligible` of the rest's. MSER also cuts
// a stationary series somewhere; such a cut is noise, not a transient.
bool distinct(std::span<const double> values, std::size_t found, double negligible) {
  if (found == 0) return false;
  const std::span<const double> start = values.first(found);
  const std::span<const double> rest = values.subspan(found);
  const double moved = std::abs(quantile(start, 0.5) - quantile(rest, 0.5));
  return moved > negligible * std::abs(quantile(rest, 0.5)) &&
         moved > std::hypot(absoluteReach(start), absoluteReach(rest));
}

// The start-up transient of `values` as the rules see it: the samples to leave out, and whether
// one at another level has yet to end, spanning more than kMaxTransientShare of them (MSER cuts
// a trend, which never ends, at any length). `sample_seconds`, the mean length of a sample so
// far (0: not known), ends the wait for a transient that would span kMaxTransientShare only
// after max_time at that rate: waiting cannot get there, and max_time would end the case with
// both levels mixed into its median. The level after it is judged at once, as the rest of an
// ended transient is, so the drift guard still holds it where that level itself moves. A 1 GiB
// pageable copy of 167 ms whose host made it 140 ms after 35 samples would have its old level
// left out only after 140 samples (21 s).
struct StartUp {
  std::size_t leave_out = 0;
  bool ongoing = false;
};

StartUp startUp(const MeasureSettings& settings, std::span<const double> values,
                double sample_seconds = 0) {
  if (!settings.trim_transient) return {};
  const std::size_t found = transientLength(values);
  if (!distinct(values, found, settings.ci_target)) return {};
  if (static_cast<double>(found) > kMaxTransientShare * static_cast<double>(values.size())) {
    const double seconds_to_end = sample_seconds * static_cast<double>(found) / kMaxTransientShare;
    if (seconds_to_end > settings.max_time) return {found, false};
    return {0, true};
  }
  return {found, false};
}

}  // namespace

std::size_t transientToLeaveOut(const MeasureSettings& settings, std::span<const double> values) {
  return startUp(settings, values).leave_out;
}

std::size_t transientLength(std::span<const double> values) {
  const std::size_t batches = values.size() / kTransientBatch;
  if (batches < 4) return 0;
  std::vector<double> medians;
  for (std::size_t b = 0; b < batches; ++b) {
    medians.push_back(quantile(values.subspan(b * kTransientBatch, kTransientBatch), 0.5));
  }
  // The sums of the last k medians and of their squares, from the end, give each truncation's
  // squared deviations in O(1): sum((z - mean)^2) = sum(z^2) - sum(z)^2 / k.
  double sum = 0;
  double squares = 0;
  std::vector<double> marginal(batches + 1, 0);
  for (std::size_t d = batches; d-- > 0;) {
    sum += medians[d];
    squares += medians[d] * medians[d];
    const double k = static_cast<double>(batches - d);
    marginal[d] = std::max(0.0, squares - sum * sum / k) / (k * k);
  }
  std::size_t best = 0;
  for (std::size_t d = 1; d <= batches / 2; ++d) {
    if (marginal[d] < marginal[best]) best = d;
  }
  return best * kTransientBatch;
}

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
                      moved > std::hypot(absoluteReach(first), absoluteReach(second)) &&
                      (values.size() < 2 * kDriftBatches || trending(values));
  return drifts && median > 0 ? moved / median : 0;
}

bool drifting(std::span<const double> values, double negligible) {
  return medianDrift(values, negligible) > 0;
}

bool isCheckpoint(std::size_t n) {
  // Between 2^k and 2^(k + 1) samples, every 2^k / kCheckpointsPerDoubling-th.
  return n <= kJudgeEverySampleUpTo || n % (std::bit_floor(n) / kCheckpointsPerDoubling) == 0;
}

StopCheck stoppedOnTime(const MeasureSettings& settings, std::span<const double> values) {
  const std::size_t transient = transientToLeaveOut(settings, values);
  const std::span<const double> steady = values.subspan(transient);
  if (settings.sweep_share < settings.max_time) {
    return {StopState::TimeLimit, StopRule::SweepTime, medianUncertainty(steady), transient};
  }
  // Whether the median was still moving says why no other rule could end sampling.
  return {StopState::TimeLimit, StopRule::TimeLimit, medianDrift(steady, settings.ci_target),
          transient};
}

double sweepShare(double budget_seconds, double elapsed_seconds, std::size_t cases_left) {
  if (cases_left == 0) return 0;
  return std::max(0.0, budget_seconds - elapsed_seconds) / static_cast<double>(cases_left);
}

namespace {

// evaluateStop's rules past the time limit: whether the samples answer the question yet.
StopCheck judge(const MeasureSettings& settings, std::span<const double> values,
                double timed_seconds) {
  const std::size_t n = values.size();
  if (n < static_cast<std::size_t>(settings.min_samples) || !isCheckpoint(n)) return {};
  const double sample_seconds = timed_seconds / static_cast<double>(n);
  const StartUp start = startUp(settings, values, sample_seconds);
  if (start.ongoing) return {};  // more samples are needed to see it end
  const std::size_t transient = start.leave_out;
  const std::span<const double> steady = values.subspan(transient);
  if (steady.size() < static_cast<std::size_t>(settings.min_samples)) return {};
  const double noise = relativeNoise(steady);
  if (noise <= settings.max_noise) {
    return {StopState::Done, StopRule::NoiseTarget, noise, transient};
  }
  // The interval and the noise's stability assume independent samples; a level that wanders
  // over a few hundred milliseconds narrows them over a shorter stretch all the same.
  if (timed_seconds < settings.min_time) return {};
  // Where the median still moves, neither its interval nor a stable noise means it is known.
  if (drifting(steady, settings.ci_target)) return {};
  const double uncertainty = medianUncertainty(steady);
  if (uncertainty <= settings.ci_target) {
    return {StopState::Done, StopRule::Converged, uncertainty, transient};
  }
  const double samples_to_target =
      (uncertainty / settings.ci_target) * (uncertainty / settings.ci_target);
  if (samples_to_target > kOutOfReachSampleFactor && noiseStable(steady)) {
    return {StopState::Done, StopRule::NoiseStable, noise, transient};
  }
  // At the rate so far, the interval would reach the target only after max_time: sampling on
  // would end on max-time with little more known (pageable copies of 70-150 ms that spread by
  // 10-20%, and from run to run as much). It ends with the interval it has at once where samples
  // this long leave no time to see the noise settle, and otherwise once it has had that share
  // of max_time for its noise to settle (a stable noise would have ended it above) and for a
  // start-up transient to end and be left out: a 128 B allreduce whose first 380 samples are a
  // transient ends converged after 1536, and judged out of reach at 252 its median was 17% off.
  const bool noise_judged =
      steady.size() >= kStableMinSamples && timed_seconds >= kStableJudgeShare * settings.max_time;
  if (samples_to_target > kOutOfReachSampleFactor &&
      timed_seconds * samples_to_target > settings.max_time &&
      (noise_judged || sample_seconds * static_cast<double>(kStableMinSamples) >
                           kStableJudgeShare * settings.max_time)) {
    return {StopState::Done, StopRule::OutOfReach, uncertainty, transient};
  }
  return {};
}

}  // namespace

StopCheck evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds) {
  const std::size_t n = values.size();
  if (settings.samples > 0) {
    return n >= static_cast<std::size_t>(settings.samples)
               ? StopCheck{StopState::Done, StopRule::Fixed, 0}
               : StopCheck{};
  }
  if (wall_seconds >= settings.max_time) return stoppedOnTime(settings, values);
  const StopCheck judged = judge(settings, values, timed_seconds);
  // The budget ends a case that needs more, never one that has its answer at this sample, and
  // only once it has the samples that every case's interval and guards need.
  if (judged.state == StopState::Continue && wall_seconds >= settings.sweep_share &&
      n >= static_cast<std::size_t>(settings.min_samples)) {
    return stoppedOnTime(settings, values);
  }
  return judged;
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
    case StopRule::SweepTime:
      return std::isfinite(figure)
                 ? fmt::format("sweep-time share reached (median ±{:.2f}% at {:g}%)", figure * 100,
                               kMedianConfidence * 100)
                 : "sweep-time share reached";
    case StopRule::Converged:
      return fmt::format("estimate converged (median ±{:.2f}% at {:g}%)", figure * 100,
                         kMedianConfidence * 100);
    case StopRule::NoiseTarget:
      return fmt::format("noise target met (std/mean {:.2f}%)", figure * 100);
    case StopRule::NoiseStable:
      return fmt::format("noise stable (std/mean {:.2f}%)", figure * 100);
    case StopRule::OutOfReach:
      return fmt::format("--ci-target out of reach within --max-time (median ±{:.2f}% at {:g}%)",
                         figure * 100, kMedianConfidence * 100);
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
