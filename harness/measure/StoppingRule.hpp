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
// A case whose kStableMinSamples samples would take more than this share of max_time has no
// time to show a stable noise: once the target is out of reach within max_time, it ends with
// the interval it has (StopRule::OutOfReach). Any other such case ends so once this share of
// max_time has passed with kStableMinSamples samples at least and its noise has not settled.
inline constexpr double kStableJudgeShare = 1.0 / 3;

// Up to this many samples every sample is judged; past it, kCheckpointsPerDoubling times per
// doubling of the count, so that judging (O(n) each time) stays a small share of the time, and
// a rule is found to hold at most 1/kCheckpointsPerDoubling of the samples late.
inline constexpr std::size_t kJudgeEverySampleUpTo = 64;
inline constexpr std::size_t kCheckpointsPerDoubling = 32;

// A start-up transient (a clock settling, a library's first calls, a cache filling) is left out
// of the samples rather than diluted by more of them: the start of sampling that MSER-5 (White,
// 1997; the marginal standard error rule of simulation output analysis) truncates. Over batches
// of kTransientBatch samples, it is the number of leading batches, at most half of them, whose
// removal minimises the squared standard error of the mean of the remaining batches. The batches
// are represented by their medians, not their means: microsecond latencies have heavy tails.
inline constexpr std::size_t kTransientBatch = 5;
// A transient is left out only once it spans at most this share of the samples: MSER cuts a
// trend, which never ends, at up to half of them, and the drift guard's test for a trend needs
// most of the samples to tell one from a series that only wanders.
inline constexpr double kMaxTransientShare = 0.25;

// The drift guard also asks whether the medians of kDriftBatches contiguous batches of the
// samples follow a trend (the batch means method for correlated series): the order-statistic
// intervals assume independent samples, and a series that wanders without a trend (a small
// collective switching between latencies every few hundred samples) narrows them without bound,
// so its halves would always differ and it would sample until --max-time, although more samples
// do not settle it. kDriftT is Student's t at 97.5% for the kDriftBatches - 2 = 14 degrees of
// freedom of a line through 16 batch medians.
inline constexpr std::size_t kDriftBatches = 16;
inline constexpr double kDriftT = 2.145;

struct StopCheck {
  StopState state = StopState::Continue;
  StopRule rule = StopRule::None;  // the rule that holds, when state is not Continue
  // Converged, SweepTime, OutOfReach: the median's relative reach (infinite where the samples left
  // after a transient are too few for an interval); Noise*: std/mean; TimeLimit: the median's drift
  // between the halves of the samples (0 where it did not drift); else 0.
  double figure = 0;
  // When state is not Continue: how many samples at the start were a start-up transient, left
  // out of what the rules judged (0 where settings.trim_transient is off).
  std::size_t transient = 0;
};

// `values`: seconds per execution so far; `timed_seconds`: the sum of the samples' full
// durations; `wall_seconds`: time since sampling began. In order:
// - with a fixed count (settings.samples), Done once it is reached, and nothing else;
// - TimeLimit once wall_seconds reaches max_time (stoppedOnTime);
// - Continue below min_samples, and between checkpoints (isCheckpoint);
// - Continue while a start-up transient (transientLength, at another level than the rest)
//   spans more than kMaxTransientShare of the samples: it has not clearly ended yet; unless
//   the samples it would take to span that share would take past max_time at the rate of the
//   timed samples so far, where it is left out at once;
// - from here on, the samples after the transient to leave out (transientToLeaveOut) are
//   judged, and Continue while they are fewer than min_samples;
// - Done (NoiseTarget) when std/mean <= max_noise: a quiet case ends here, whatever min_time;
// - Continue below min_time of timed samples;
// - Done (Converged) when the median's 95% interval reaches at most ci_target from it, or
//   Done (NoiseStable) when the noise is stable and ci_target out of reach (above), or
//   Done (OutOfReach) when ci_target is out of reach, would be reached only after max_time at
//   the rate of timed samples so far, and either kStableJudgeShare of max_time has shown no
//   stable noise or the samples are too long to see the noise settle in it; each only where the
//   series does not drift;
// - otherwise TimeLimit (SweepTime: stoppedOnTime) where wall_seconds has reached
//   settings.sweep_share with min_samples taken, and Continue where it has not.
StopCheck evaluateStop(const MeasureSettings& settings, std::span<const double> values,
                       double timed_seconds, double wall_seconds);

// The check of a case whose time ran out, on this rank or on another (whose TimeLimit stopped
// every rank): SweepTime, with the median's reach, where settings.sweep_share is the shorter
// limit; else TimeLimit, with the median's drift. Either with the transient to leave out.
StopCheck stoppedOnTime(const MeasureSettings& settings, std::span<const double> values);

// A case's share of a sweep's budget: what is left of `budget_seconds` after `elapsed_seconds`,
// spread evenly over the `cases_left` cases (this one among them), so that a case which needs
// less than its share leaves the rest to those after it. 0 once the budget is spent.
double sweepShare(double budget_seconds, double elapsed_seconds, std::size_t cases_left);

// Whether the convergence rules are judged after the n-th sample. The same on every rank, since
// all ranks take the same number of samples.
bool isCheckpoint(std::size_t n);

// std/mean of `values`, the noise the rule compares with max_noise (0 for fewer than 2 values).
double relativeNoise(std::span<const double> values);

// How far the 95% interval of the median reaches from it, relative to the median.
double medianUncertainty(std::span<const double> values);

// Whether the noise has stabilised (kStableMinSamples, kStableNoiseSpread above).
bool noiseStable(std::span<const double> values);

// How many samples at the start of `values` are a start-up transient (kTransientBatch above):
// a multiple of kTransientBatch, at most half of the values; 0 for fewer than 4 batches.
std::size_t transientLength(std::span<const double> values);

// The samples at the start of `values` to leave out: the start-up transient (transientLength)
// where settings.trim_transient is on, the transient has ended (spans at most
// kMaxTransientShare of the values) and lies at another level than the rest (their medians
// differ by more than both 95% intervals allow and by more than settings.ci_target: MSER also
// cuts a stationary series somewhere); else 0.
std::size_t transientToLeaveOut(const MeasureSettings& settings, std::span<const double> values);

// Whether the median moves between the first and the second half of `values` by more than the
// two halves' 95% intervals allow (the root of the sum of their squared reaches), while the
// batches' medians follow a trend (above; with batches of two samples at least), and by more
// than `negligible` of the
// median (a move below the precision asked for does not matter, and timer ticks would otherwise
// count as one): a clock ramping down, a device warming up, a cache filling. Never for fewer
// than 2 values.
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
