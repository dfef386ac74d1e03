// When to stop taking samples: pure functions, so the rule can be tested with made-up samples.
//
// Sampling stops when the estimate is known well enough, not when the samples stop spreading:
// the spread of a workload (1-4% for GEMMs under a power cap, small collectives, steps with a
// host copy) does not shrink with more samples, but the uncertainty of their median does.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "measure/MeasureSettings.hpp"
#include "measure/Measurement.hpp"

namespace splitstep {

// Ordered so that the maximum over ranks is the job's decision: any rank over its time limit
// stops everyone; otherwise any rank that needs more keeps everyone sampling.
enum class StopState { Done = 0, Continue = 1, TimeLimit = 2 };

// nvbench's "noise stable" rule (stdrel_criterion): the noise estimates taken after each of
// the trailing samples spread by at most kStableNoiseSpread of the current one. nvbench keeps the
// last 512 estimates; here the window is the latter half of the samples, so that the first,
// wild estimates leave it at any length, and it is judged from kStableMinSamples samples on.
inline constexpr std::size_t kStableMinSamples = 64;
inline constexpr double kStableNoiseSpread = 0.05;
// A stable noise ends sampling short of --ci-target only where reaching it would take more than
// this many times the samples taken so far (the interval narrows as 1/sqrt(n): while it still
// reaches more than twice the target); nearer, the few more samples are worth taking. So a
// workload spreading by less than about 2% ends with its median known within --ci-target.
inline constexpr double kOutOfReachSampleFactor = 4;

// Up to this many samples every sample is judged; past it, kCheckpointsPerDoubling times per
// doubling of the count, so that judging (O(n) each time) stays a small share of the time, and
// a rule is found to hold at most 1/kCheckpointsPerDoubling of the samples late.
inline constexpr std::size_t kJudgeEverySampleUpTo = 64;
inline constexpr std::size_t kCheckpointsPerDoubling = 32;

struct StopCheck {
  StopState state = StopState::Continue;
  StopRule rule = StopRule::None;  // the rule that holds, when state is not Continue
  // Converged: the median's relative reach; Noise*: std/mean; TimeLimit: the median's drift
  // between the halves of the samples (0 where it did not drift); else 0.
  double figure = 0;
};

// `values`: seconds per execution so far; `timed_seconds`: the sum of the samples' full
// durations; `wall_seconds`: time since sampling began. In order:
// - with a fixed count (settings.samples), Done once it is reached, and nothing else;
// - TimeLimit once wall_seconds reaches max_time;
// - Continue below min_samples or min_time, and between checkpoints (isCheckpoint);
// - Done (NoiseTarget) when std/mean <= max_noise;
// - Done (Converged) when the median's 95% interval reaches at most ci_target from it, or
//   Done (NoiseStable) when the noise is stable and ci_target out of reach (above), either only
//   where the series does not drift;
// - otherwise Continue.
StopCheck evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds);

// Whether the convergence rules are judged after the n-th sample. The same on every rank, since
// all ranks take the same number of samples.
bool isCheckpoint(std::size_t n);

// std/mean of `values`, the noise the rule compares with max_noise (0 for fewer than 2 values).
double relativeNoise(std::span<const double> values);

// How far the 95% interval of the median reaches from it, relative to the median.
double medianUncertainty(std::span<const double> values);

// Whether the noise has stabilised (kStableMinSamples, kStableNoiseSpread above).
bool noiseStable(std::span<const double> values);

// Whether the median moves between the first and the second half of `values` by more than the
// two halves' 95% intervals allow (the root of the sum of their squared reaches), and by more
// than `negligible` of the median (a move below the precision asked for does not matter, and
// timer ticks would otherwise count as one): a clock ramping down, a device warming up, a cache
// filling. Never for fewer than 2 values.
bool drifting(std::span<const double> values, double negligible);
// How far the median moved between the two halves, relative to the median of all `values`,
// where drifting() holds; 0 where it does not.
double medianDrift(std::span<const double> values, double negligible);

// The rule in words, with its figure: "estimate converged (median ±0.31% at 95%)".
std::string stopReason(StopRule rule, double figure);

// Autorange's next loop count: enough for a sample of `target_seconds` after one of `loops`
// lasted `sample_seconds`, with 20% to spare; at least double, at most 100x, and at most
// max_loops. Returns `loops` itself when the sample already lasted long enough.
int nextLoopCount(int loops, double sample_seconds, double target_seconds, int max_loops);

}  // namespace splitstep
