#include "measure/StoppingRule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "SyntheticTimings.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {
namespace {

MeasureSettings rule() {
  MeasureSettings s;
  s.min_samples = 4;
  s.min_time = 1.0;
  s.ci_target = 0.005;
  s.max_noise = 0.01;
  s.max_time = 10;
  return s;
}

// The defaults a user gets: at least 20 samples (and 0.5 s for the interval or a stable noise),
// the median within 0.5%, at most 15 s.
MeasureSettings defaults() { return MeasureSettings{}; }

struct FirstStop {
  std::size_t samples = 0;  // how many samples were taken when sampling stopped
  double wall = 0;          // the wall time sampling took
  StopCheck check;
};

// Feeds `values` (seconds per execution, `loops` executions a sample) to the rule one sample at
// a time, as the Measurer does, with the wall clock running `wall_per_timed` times the timed
// work (the host's share between samples on top).
FirstStop firstStop(const MeasureSettings& settings, const std::vector<double>& values,
                    double wall_per_timed = 1.05, int loops = 1) {
  double timed = 0;
  for (std::size_t n = 1; n <= values.size(); ++n) {
    timed += values[n - 1] * loops;
    const StopCheck check =
        evaluateStop(settings, std::span(values).first(n), timed, timed * wall_per_timed);
    if (check.state != StopState::Continue) return {n, timed * wall_per_timed, check};
  }
  return {values.size(), timed * wall_per_timed, StopCheck{}};
}

// The median of the samples the rule judged when it stopped: those taken, less the transient.
double judgedMedian(const std::vector<double>& series, const FirstStop& stop) {
  return quantile(std::span(series).first(stop.samples).subspan(stop.check.transient), 0.5);
}

TEST(StoppingRule, RelativeNoiseIsSampleStdOverMean) {
  // mean 10, sample std sqrt((1 + 1) / 1) = sqrt(2).
  EXPECT_DOUBLE_EQ(relativeNoise(std::vector<double>{9, 11}), std::sqrt(2.0) / 10);
  EXPECT_DOUBLE_EQ(relativeNoise(std::vector<double>{5}), 0);
}

TEST(StoppingRule, NeedsMinSamplesBeforeJudgingAndMinTimeBeforeTheInterval) {
  const std::vector<double> quiet(3, 1.0);
  EXPECT_EQ(evaluateStop(rule(), quiet, 5.0, 5.0).state, StopState::Continue);  // 3 < 4 samples
  // Quiet samples meet the noise target before min_time: they all lie within it.
  const std::vector<double> four(4, 1.0);
  const StopCheck done = evaluateStop(rule(), four, 0.5, 5.0);
  EXPECT_EQ(done.state, StopState::Done);
  EXPECT_EQ(done.rule, StopRule::NoiseTarget);
  EXPECT_DOUBLE_EQ(done.figure, 0);
  // A noisier series (std/mean 2.2%) whose median's interval is within the target at once
  // converges only once min_time has passed.
  std::vector<double> noisy(19, 1.0);
  noisy.push_back(1.1);
  ASSERT_GT(relativeNoise(noisy), rule().max_noise);
  EXPECT_EQ(evaluateStop(rule(), noisy, 0.5, 5.0).state, StopState::Continue);  // 0.5 s < 1 s
  EXPECT_EQ(evaluateStop(rule(), noisy, 1.0, 5.0).rule, StopRule::Converged);
}

TEST(StoppingRule, AStableNoisySeriesStopsEarlyOnceItsMedianIsKnown) {
  // 2 ms samples spreading by 2%: std/mean never reaches 0.5%, so the spread alone would sample
  // until --max-time. The median's 95% interval narrows as 1/sqrt(n) and is within 0.5% after
  // about a hundred samples; --min-time's 0.5 s holds 250.
  const std::vector<double> series = testing::stableSeries(7500, 2e-3, 0.02, 11);
  ASSERT_GT(relativeNoise(series), 0.015);
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_EQ(stop.check.rule, StopRule::Converged);
  EXPECT_LE(stop.check.figure, 0.005);
  EXPECT_LT(stop.wall, 1.0) << stop.samples << " samples";
  // The figure is the uncertainty of the samples taken, as medianUncertainty states it.
  EXPECT_DOUBLE_EQ(stop.check.figure, medianUncertainty(std::span(series).first(stop.samples)));
}

TEST(StoppingRule, ASlowNoisySeriesStopsOnceItsNoiseIsStable) {
  // A 48 ms training step spreading by 5%: its median would be known within 0.5% only after
  // about 600 steps (29 s, past --max-time), but its noise settles within a few seconds.
  const std::vector<double> series = testing::stableSeries(400, 48e-3, 0.05, 12);
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_EQ(stop.check.rule, StopRule::NoiseStable);
  EXPECT_GE(stop.samples, kStableMinSamples);
  EXPECT_LT(stop.wall, 10.0) << stop.samples << " samples";
  EXPECT_NEAR(stop.check.figure, 0.05, 0.01);  // the noise it settled at
}

TEST(StoppingRule, ALongSampleOutOfReachEndsWithTheIntervalItHas) {
  // A pageable host copy of 1 GiB: 150 ms a sample, spreading by 15%. Its median would be known
  // within 0.5% only after thousands of samples, and the 64 the noise-stable rule needs would
  // take 9.6 s of the 15: it ends once --min-samples and --min-time are there, its interval
  // stated, instead of at --max-time.
  const std::vector<double> series = testing::stableSeries(200, 0.15, 0.15, 13);
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_EQ(stop.check.rule, StopRule::OutOfReach);
  EXPECT_EQ(stop.samples, static_cast<std::size_t>(defaults().min_samples));
  EXPECT_LT(stop.wall, 4.0);
  EXPECT_NEAR(stop.check.figure, medianUncertainty(std::span(series).first(stop.samples)), 1e-12);
  EXPECT_GT(stop.check.figure, defaults().ci_target);
  // The same spread in samples of 50 ms: 64 of them take 3.2 s, so it waits for its noise.
  const FirstStop shorter = firstStop(defaults(), testing::stableSeries(400, 0.05, 0.15, 13));
  EXPECT_NE(shorter.check.rule, StopRule::OutOfReach);
  EXPECT_GE(shorter.samples, kStableMinSamples);
  // A 69 ms pageable copy (of 1 GiB on an H200) whose spread keeps changing: its 64 samples
  // (4.4 s) fit in a third of --max-time, so it waits for its noise, which does not settle, and
  // ends out of reach once that third has passed instead of at --max-time's 15 s.
  std::vector<double> unsettled = testing::stableSeries(300, 0.069, 0.05, 15);
  for (std::size_t i = 32; i < unsettled.size(); i += 8) unsettled[i] *= 1.6;
  ASSERT_FALSE(noiseStable(std::span(unsettled).first(kStableMinSamples)));
  const FirstStop copy = firstStop(defaults(), unsettled);
  EXPECT_EQ(copy.check.rule, StopRule::OutOfReach);
  EXPECT_GT(copy.samples, kStableMinSamples);
  EXPECT_GE(copy.wall, kStableJudgeShare * defaults().max_time);
  EXPECT_LT(copy.wall, 6.0);
  // Where the target is within reach by --max-time, long samples go on: 150 ms spreading by
  // 0.8% reach ±0.5% in a few dozen samples.
  const FirstStop near = firstStop(defaults(), testing::stableSeries(200, 0.15, 0.008, 14));
  EXPECT_EQ(near.check.rule, StopRule::Converged);
}

TEST(StoppingRule, AQuietShortCaseEndsInMilliseconds) {
  // A 5 us collective spreading by 0.1%, autoranged to samples of 2 ms (400 executions): its
  // median is known once the guards have their samples, 40 ms in; --min-time's 0.5 s is for
  // the interval of a noisy case, not for one whose samples all lie within the target.
  const std::vector<double> series = testing::stableSeries(5000, 5e-6, 0.001, 30);
  const FirstStop stop = firstStop(defaults(), series, 1.05, 400);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_EQ(stop.check.rule, StopRule::NoiseTarget);
  EXPECT_EQ(stop.samples, static_cast<std::size_t>(defaults().min_samples));
  EXPECT_LT(stop.wall, 0.05) << stop.samples << " samples";
  // Its interval is there, and within the target.
  EXPECT_LT(medianUncertainty(std::span(series).first(stop.samples)), defaults().ci_target);
}

TEST(StoppingRule, AQuietCaseThatDriftsIsNotStoppedByItsLowNoise) {
  // The same quiet case, slowing by 0.07% a sample (a clock ramping down, 2 ms a sample): over
  // the first 20 samples std/mean is still within --max-noise, but they lie at two levels to
  // MSER, and the median goes on moving.
  const std::vector<double> series = testing::driftingSeries(8000, 5e-6, 0.001, 7e-4, 31);
  ASSERT_LE(relativeNoise(std::span(series).first(20)), defaults().max_noise);
  EXPECT_EQ(evaluateStop(defaults(), std::span(series).first(20), 20 * 2e-3, 0.042).state,
            StopState::Continue);
  // Ten samples, two batches, are too few for MSER to see it: they would pass as quiet.
  MeasureSettings ten = defaults();
  ten.min_samples = 10;
  EXPECT_EQ(evaluateStop(ten, std::span(series).first(10), 10 * 2e-3, 0.021).rule,
            StopRule::NoiseTarget);
  const FirstStop stop = firstStop(defaults(), series, 1.05, 400);
  EXPECT_EQ(stop.check.state, StopState::TimeLimit);
  EXPECT_EQ(stop.check.rule, StopRule::TimeLimit);
  EXPECT_GT(stop.check.figure, 0.01);  // the median still moving
}

TEST(StoppingRule, ACaseStopsOnItsSweepShareWithItsInterval) {
  // 2 ms samples spreading by 5%, given 60 ms of a sweep's budget: too few samples for the
  // median within 0.5% or a stable noise; the share ends it, the interval reached stated.
  const std::vector<double> series = testing::stableSeries(5000, 2e-3, 0.05, 33);
  MeasureSettings shared = defaults();
  shared.sweep_share = 0.06;
  const FirstStop stop = firstStop(shared, series);
  EXPECT_EQ(stop.check.state, StopState::TimeLimit);
  EXPECT_EQ(stop.check.rule, StopRule::SweepTime);
  EXPECT_GE(stop.wall, 0.06);
  EXPECT_LT(stop.wall, 0.06 + 2.1e-3 * 1.2);  // the first sample past it
  EXPECT_DOUBLE_EQ(stop.check.figure, medianUncertainty(std::span(series).first(stop.samples)));
  EXPECT_GT(stop.check.figure, shared.ci_target);
  EXPECT_EQ(
      stopReason(stop.check.rule, stop.check.figure).rfind("sweep-time share reached (median ±", 0),
      0u);
}

TEST(StoppingRule, TheSweepShareNeverCutsACaseBelowItsMinimumOrAnAnswer) {
  // A spent budget (share 0) still lets every case take --min-samples, so that each has its
  // interval; a case whose rule holds at that sample stops on its rule, not the budget.
  MeasureSettings spent = defaults();
  spent.sweep_share = 0;
  const FirstStop noisy = firstStop(spent, testing::stableSeries(1000, 2e-3, 0.05, 34));
  EXPECT_EQ(noisy.check.rule, StopRule::SweepTime);
  EXPECT_EQ(noisy.samples, static_cast<std::size_t>(spent.min_samples));
  EXPECT_TRUE(std::isfinite(noisy.check.figure));
  const FirstStop quiet = firstStop(spent, testing::stableSeries(1000, 2e-3, 0.001, 35));
  EXPECT_EQ(quiet.check.rule, StopRule::NoiseTarget);
  EXPECT_EQ(quiet.samples, static_cast<std::size_t>(spent.min_samples));
}

TEST(StoppingRule, TheLimitThatBindsNamesATimedOutCase) {
  const std::vector<double> series = testing::stableSeries(100, 1e-3, 0.02, 36);
  MeasureSettings settings = defaults();
  EXPECT_EQ(stoppedOnTime(settings, series).rule, StopRule::TimeLimit);
  settings.sweep_share = 2;  // shorter than --max-time's 15 s
  const StopCheck shared = stoppedOnTime(settings, series);
  EXPECT_EQ(shared.state, StopState::TimeLimit);
  EXPECT_EQ(shared.rule, StopRule::SweepTime);
  EXPECT_DOUBLE_EQ(shared.figure, medianUncertainty(series));
  settings.sweep_share = 20;  // longer: --max-time binds first
  EXPECT_EQ(stoppedOnTime(settings, series).rule, StopRule::TimeLimit);
}

TEST(StoppingRule, ASweepsBudgetIsSharedOverTheCasesLeft) {
  // 10 s, 4 s spent, 3 cases left (this one among them): 2 s each; a case that takes less
  // leaves more to the next.
  EXPECT_DOUBLE_EQ(sweepShare(10, 4, 3), 2);
  EXPECT_DOUBLE_EQ(sweepShare(10, 5, 2), 2.5);
  EXPECT_DOUBLE_EQ(sweepShare(10, 12, 2), 0);  // spent
  EXPECT_DOUBLE_EQ(sweepShare(10, 0, 0), 0);
}

TEST(StoppingRule, ADriftingSeriesKeepsGoingUntilMaxTime) {
  // The same 3% spread, slowing down by 0.02% per sample: the median moves with every sample,
  // so neither its interval nor a stable noise may end sampling.
  const std::vector<double> series = testing::driftingSeries(20000, 2e-3, 0.03, 2e-4, 13);
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::TimeLimit);
  EXPECT_EQ(stop.check.rule, StopRule::TimeLimit);
  EXPECT_GE(stop.wall, defaults().max_time);
  // The reason says the median was still moving, and by how much.
  EXPECT_GT(stop.check.figure, 0.01);
  EXPECT_NE(stopReason(stop.check.rule, stop.check.figure).find("the median still moving"),
            std::string::npos);
}

TEST(StoppingRule, AStepChangeIsLeftOutOnceTheNewLevelHoldsThreeQuartersOfTheSamples) {
  // 100 samples at 2.0 ms, then the clock drops and every sample takes 2.1 ms (1% spread each).
  std::vector<double> series = testing::stableSeries(100, 2.0e-3, 0.01, 14);
  const std::vector<double> slower = testing::stableSeries(3000, 2.1e-3, 0.01, 15);
  series.insert(series.end(), slower.begin(), slower.end());
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  // Not before the later level holds three quarters of the samples; the first level is then
  // left out, and the later level's median, not a mixture, is what the rules judged.
  EXPECT_GE(stop.samples, 4u * 100u);
  // MSER may cut a few batches late, never early.
  EXPECT_GE(stop.check.transient, 100u);
  EXPECT_LE(stop.check.transient, 100u + 4 * kTransientBatch);
  EXPECT_NEAR(judgedMedian(series, stop), 2.1e-3, 2.1e-3 * 0.005);
}

TEST(StoppingRule, AStepThatCouldNotBeWaitedOutIsLeftOutAtOnce) {
  // A 1 GiB pageable copy as one H100's host ran it (results/2026-12-06-h100-time-to-answer,
  // default.json; ms): 33 samples about 166 ms, then about 140 ms, wandering by 8%. Its old level
  // would span a quarter of the samples only after about 140 of them (21 s): it ran to
  // --max-time (100 samples) with both levels in its median. Once MSER finds the step, the old
  // level is left out and the new one judged.
  std::vector<double> series = {
      168.1, 164.8, 164.6, 165.7, 164.9, 163.5, 167.4, 172.0, 167.0, 166.0, 166.6, 166.3, 168.1,
      166.4, 166.9, 164.2, 167.7, 168.0, 165.9, 165.8, 164.9, 163.9, 165.7, 164.3, 164.0, 166.7,
      165.3, 166.6, 167.9, 164.8, 164.1, 163.5, 161.4, 154.6, 132.3, 135.9, 134.9, 141.3, 147.8,
      142.0, 145.1, 155.7, 159.6, 154.8, 139.4, 134.6, 133.6, 136.8, 137.2, 134.9, 136.4, 149.3,
      172.8, 167.7, 130.7, 149.9, 155.1, 134.7, 143.9, 142.6, 140.7, 134.1, 132.9, 131.1, 132.7,
      131.7, 130.5, 132.9, 135.0, 149.5, 154.0, 153.2, 152.1, 149.6, 142.5, 144.8, 138.1, 138.4,
      143.1, 148.2, 136.4, 149.9, 173.0, 153.3, 141.9, 144.7, 143.5, 139.3, 139.2, 140.3, 141.0,
      136.0, 138.4, 137.2, 137.8, 151.6, 150.1, 136.9, 138.0, 141.2};
  for (double& v : series) v *= 1e-3;
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_LE(stop.samples, 72u);  // about 11 s of the 15 it took
  EXPECT_GE(stop.check.transient, 33u);
  EXPECT_LE(stop.check.transient, 35u + 4 * kTransientBatch);
  EXPECT_NEAR(judgedMedian(series, stop), 0.140, 0.140 * 0.03);
  // The same step in 2 ms samples is waited out: 140 of them take 0.3 s.
  std::vector<double> shorter = testing::stableSeries(35, 2.0e-3, 0.01, 16);
  const std::vector<double> after = testing::stableSeries(3000, 1.7e-3, 0.01, 17);
  shorter.insert(shorter.end(), after.begin(), after.end());
  const FirstStop waited = firstStop(defaults(), shorter);
  EXPECT_GE(waited.samples, 4u * 35u) << toString(waited.check.rule);
}

TEST(StoppingRule, AStartUpTransientIsLeftOutAndAWanderingSeriesStops) {
  // A small collective as one H200 pair ran it (128 B): 4 ms samples spreading by 13%, the
  // first 60 of them (0.25 s, half of --min-time) 20% slower, then a level that wanders by 2%
  // every 300 samples. The transient is left out rather than mixed into the median, and the
  // wandering, which moves the halves' medians apart by more than their intervals allow, but
  // along no line, does not hold sampling until --max-time.
  const std::vector<double> series =
      testing::withTransient(testing::wanderingSeries(20000, 4e-3, 0.13, 0.02, 300, 25), 60, 1.2);
  const FirstStop stop = firstStop(defaults(), series);
  EXPECT_EQ(stop.check.state, StopState::Done);
  EXPECT_LT(stop.wall, 8.0) << stop.samples << " samples";
  // Not before the transient spans at most a quarter of the samples; then it is left out (MSER
  // may cut a few batches late, never early).
  EXPECT_GE(stop.samples, 4u * 60u);
  EXPECT_GE(stop.check.transient, 60u);
  EXPECT_LE(stop.check.transient, 60u + 4 * kTransientBatch);
}

TEST(StoppingRule, TheTransientIsMsersTruncation) {
  // 200 samples 20% slower, then 1800 steady ones: MSER cuts at the change, or a few batches
  // later.
  const std::vector<double> series =
      testing::withTransient(testing::stableSeries(2000, 1e-3, 0.02, 26), 200, 1.2);
  EXPECT_GE(transientLength(series), 200u);
  EXPECT_LE(transientLength(series), 200u + 4 * kTransientBatch);
  // Never more than half the samples, and nothing for fewer than 4 batches.
  const std::vector<double> trend = testing::driftingSeries(1000, 1e-3, 0.02, 1e-3, 27);
  EXPECT_LE(transientLength(trend), 500u);
  EXPECT_EQ(transientLength(std::vector<double>(19, 1.0)), 0u);
  // A stationary series is cut somewhere too, but at no other level: nothing is left out.
  const std::vector<double> flat = testing::stableSeries(2000, 1e-3, 0.02, 28);
  EXPECT_EQ(transientToLeaveOut(defaults(), flat), 0u);
  EXPECT_EQ(transientToLeaveOut(defaults(), series), transientLength(series));
  // Nor where the suite turned it off, nor while it spans more than a quarter of the samples.
  MeasureSettings off = defaults();
  off.trim_transient = false;
  EXPECT_EQ(transientToLeaveOut(off, series), 0u);
  EXPECT_EQ(transientToLeaveOut(defaults(), std::span(series).first(600)), 0u);
}

TEST(StoppingRule, ADriftIsATrendOfTheBatchesNotAWanderingLevel) {
  // A trend moves the batches' medians along a line, which their spread about it does not hide.
  EXPECT_TRUE(drifting(testing::driftingSeries(2000, 2e-3, 0.10, 1e-4, 24), 0.005));
  // A level that wanders, 5% every 150 samples, moves the halves' medians apart too, by more
  // than their order-statistic intervals allow, but along no line.
  const std::vector<double> wandering = testing::wanderingSeries(4000, 2e-3, 0.02, 0.05, 150, 29);
  EXPECT_FALSE(drifting(wandering, 0.005));
}

TEST(StoppingRule, NeverStopsBeforeMinSamplesNorANoisyCaseBeforeMinTime) {
  // Series that would stop at once: quiet (noise target), and noisy but stable (interval).
  const std::vector<double> quiet(5000, 1e-3);
  const std::vector<double> noisy = testing::stableSeries(5000, 1e-3, 0.01, 16);
  for (const std::vector<double>& series : {quiet, noisy}) {
    MeasureSettings settings = defaults();
    settings.min_samples = 300;
    settings.min_time = 0.1;  // 100 samples: min_samples binds
    const FirstStop stop = firstStop(settings, series);
    EXPECT_EQ(stop.check.state, StopState::Done);
    EXPECT_GE(stop.samples, 300u);
  }
  MeasureSettings settings = defaults();
  settings.min_samples = 10;
  settings.min_time = 0.8;  // 800 samples: min_time binds the noisy series
  FirstStop stop = firstStop(settings, noisy);
  EXPECT_EQ(stop.check.rule, StopRule::Converged);
  EXPECT_GE(stop.samples, 800u);
  // Judged at checkpoints: it stops within 1/32 of the samples past the minimum.
  EXPECT_LE(stop.samples, 800u + 800u / kCheckpointsPerDoubling + 1);
  // The quiet one's samples all lie within the target: it ends at min_samples.
  stop = firstStop(settings, quiet);
  EXPECT_EQ(stop.check.rule, StopRule::NoiseTarget);
  EXPECT_EQ(stop.samples, 10u);
}

TEST(StoppingRule, NoisySamplesContinueUntilMaxTime) {
  // Samples of 1.5 s on average: 64 of them (the noise-stable rule's) fit in a third of a
  // --max-time of 1000 s, so nothing but the limit ends them (out of reach needs less room).
  MeasureSettings settings = rule();
  settings.max_time = 1000;
  const std::vector<double> noisy = {1, 2, 1, 2, 1, 2};
  EXPECT_EQ(evaluateStop(settings, noisy, 9.0, 999.9).state, StopState::Continue);
  const StopCheck late = evaluateStop(settings, noisy, 9.0, 1000.0);
  EXPECT_EQ(late.state, StopState::TimeLimit);
  EXPECT_EQ(late.rule, StopRule::TimeLimit);
}

TEST(StoppingRule, FixedCountOverridesEverythingElse) {
  MeasureSettings fixed = rule();
  fixed.samples = 3;
  EXPECT_EQ(evaluateStop(fixed, std::vector<double>{1, 2}, 0, 100).state, StopState::Continue);
  const StopCheck done = evaluateStop(fixed, std::vector<double>{1, 2, 9}, 0, 100);
  EXPECT_EQ(done.state, StopState::Done);
  EXPECT_EQ(done.rule, StopRule::Fixed);
}

TEST(StoppingRule, TheMaximumOverRanksIsTheJobsDecision) {
  EXPECT_GT(static_cast<int>(StopState::Continue), static_cast<int>(StopState::Done));
  EXPECT_GT(static_cast<int>(StopState::TimeLimit), static_cast<int>(StopState::Continue));
}

TEST(StoppingRule, MedianUncertaintyIsTheIntervalsWiderReach) {
  // Ten values, median 10: the 2nd and 9th (9 and 12) bound the 95% interval; 12 is 20% away.
  const std::vector<double> ten = {8, 9, 10, 10, 10, 10, 10, 11, 12, 13};
  EXPECT_DOUBLE_EQ(medianUncertainty(ten), 0.2);
  // Five values are too few for a 95% interval: the uncertainty is not known.
  EXPECT_EQ(medianUncertainty(std::vector<double>{1, 1, 1, 1, 1}),
            std::numeric_limits<double>::infinity());
}

TEST(StoppingRule, DriftIsAMoveOfTheMedianBeyondBothHalvesIntervals) {
  const std::vector<double> flat = testing::stableSeries(400, 1.0, 0.02, 17);
  EXPECT_FALSE(drifting(flat, 0.0));
  std::vector<double> step(200, 1.0);
  step.insert(step.end(), 200, 1.03);
  EXPECT_TRUE(drifting(step, 0.0));
  // A move below the precision asked for is no drift (a timer's tick, for one).
  EXPECT_FALSE(drifting(step, 0.05));
  EXPECT_FALSE(drifting(std::vector<double>{1.0}, 0.0));
  // 1.00 then 1.03: a move of 0.03, relative to the whole's median (between the two levels).
  EXPECT_NEAR(medianDrift(step, 0.0), 0.03, 0.001);
  EXPECT_EQ(medianDrift(flat, 0.0), 0.0);
}

TEST(StoppingRule, NoiseIsStableWhenTheLatterHalfsEstimatesAgree) {
  EXPECT_TRUE(noiseStable(testing::stableSeries(400, 1.0, 0.05, 18)));
  // Too few samples to judge, however steady.
  EXPECT_FALSE(noiseStable(testing::stableSeries(kStableMinSamples - 1, 1.0, 0.05, 18)));
  // Noise that keeps growing: every estimate is above the one before.
  std::vector<double> growing;
  for (int i = 0; i < 400; ++i) growing.push_back(1.0 + (i % 2 == 0 ? 1 : -1) * 0.001 * i);
  EXPECT_FALSE(noiseStable(growing));
  // No noise at all is for the noise target, not this rule.
  EXPECT_FALSE(noiseStable(std::vector<double>(400, 1.0)));
}

TEST(StoppingRule, CheckpointsAreEverySampleFirstThenAtMostOneThirtySecondApart) {
  for (std::size_t n = 1; n <= kJudgeEverySampleUpTo; ++n) EXPECT_TRUE(isCheckpoint(n)) << n;
  std::size_t last = kJudgeEverySampleUpTo;
  std::size_t count = 0;
  for (std::size_t n = last + 1; n <= 1'000'000; ++n) {
    if (!isCheckpoint(n)) continue;
    EXPECT_LE(n - last, n / kCheckpointsPerDoubling) << n;
    last = n;
    ++count;
  }
  // About 32 per doubling from 64 to a million samples (14 doublings), not one per sample.
  EXPECT_LT(count, 32u * 16u);
}

TEST(StoppingRule, ReasonsNameTheRuleWithItsFigure) {
  EXPECT_EQ(stopReason(StopRule::Converged, 0.0031), "estimate converged (median ±0.31% at 95%)");
  EXPECT_EQ(stopReason(StopRule::NoiseStable, 0.021), "noise stable (std/mean 2.10%)");
  EXPECT_EQ(stopReason(StopRule::NoiseTarget, 0.0042), "noise target met (std/mean 0.42%)");
  EXPECT_EQ(stopReason(StopRule::TimeLimit, 0), "max-time reached");
  EXPECT_EQ(stopReason(StopRule::TimeLimit, 0.033),
            "max-time reached, the median still moving (3.3% between the first and second half "
            "of the samples)");
  EXPECT_EQ(stopReason(StopRule::Fixed, 0), "fixed sample count");
  EXPECT_EQ(stopReason(StopRule::OutOfReach, 0.052),
            "--ci-target out of reach within --max-time (median ±5.20% at 95%)");
  EXPECT_EQ(stopReason(StopRule::SweepTime, 0.012),
            "sweep-time share reached (median ±1.20% at 95%)");
  // Too few samples left after a transient for an interval: the share alone is named.
  EXPECT_EQ(stopReason(StopRule::SweepTime, std::numeric_limits<double>::infinity()),
            "sweep-time share reached");
}

TEST(StoppingRule, NextLoopCountReachesTheTargetWithMargin) {
  // 1 loop took 0.1 ms; 2 ms wanted: 20 loops, 24 with the 20% margin.
  EXPECT_EQ(nextLoopCount(1, 1e-4, 2e-3, 1 << 20), 24);
  // Long enough already: keep.
  EXPECT_EQ(nextLoopCount(24, 2.4e-3, 2e-3, 1 << 20), 24);
  // At least double, at most 100x, never past the cap.
  EXPECT_EQ(nextLoopCount(10, 1.9e-3, 2e-3, 1 << 20), 20);
  EXPECT_EQ(nextLoopCount(1, 1e-9, 2e-3, 1 << 20), 100);
  EXPECT_EQ(nextLoopCount(1, 0, 2e-3, 1 << 20), 100);
  EXPECT_EQ(nextLoopCount(1000, 1e-9, 2e-3, 5000), 5000);
}

}  // namespace
}  // namespace splitstep
