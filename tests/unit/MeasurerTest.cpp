#include "measure/Measurer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <numeric>
#include <vector>

#include "SyntheticTimings.hpp"
#include "measure/StoppingRule.hpp"

namespace splitstep {
namespace {

// A device whose clock advances only when the test's body says so, and which records what the
// Measurer asked of it.
class FakeDevice final : public MeasureDevice {
 public:
  double now = 0;
  double empty_interval = 1e-6;  // what an empty timed interval reads (the timer's overhead)
  int synchronizations = 0;
  int flushes = 0;
  int holds = 0;
  int releases = 0;
  bool can_capture = true;
  int replays = 0;
  // "flush", "hold", "start", "stop", "release" in order, and what a test's body adds
  std::vector<std::string> events;

  class Timer final : public IntervalTimer {
   public:
    explicit Timer(FakeDevice& owner) : owner_(owner) {}
    void start() override {
      owner_.events.push_back("start");
      start_ = owner_.now;
    }
    void stop() override {
      owner_.events.push_back("stop");
      stop_ = owner_.now;
    }
    double seconds() const override {
      return stop_ > start_ ? stop_ - start_ : owner_.empty_interval;
    }
    // The fake clock stands for the host's, shifted by what the last anchor saw.
    std::optional<HostSpan> hostSpan() const override {
      return HostSpan{owner_.anchor_host + start_, owner_.anchor_host + stop_};
    }

   private:
    FakeDevice& owner_;
    double start_ = 0;
    double stop_ = 0;
  };

  class Hold final : public StreamHold {
   public:
    explicit Hold(FakeDevice& owner) : owner_(owner) {}
    void release() override {
      ++owner_.releases;
      owner_.events.push_back("release");
    }
    bool timedOut() const override { return false; }

   private:
    FakeDevice& owner_;
  };

  class Replay final : public GraphReplay {
   public:
    Replay(FakeDevice& owner, std::function<void()> body) : owner_(owner), body_(std::move(body)) {}
    void launch() override {
      ++owner_.replays;
      body_();
    }

   private:
    FakeDevice& owner_;
    std::function<void()> body_;
  };

  std::unique_ptr<IntervalTimer> newTimer() override { return std::make_unique<Timer>(*this); }
  void synchronize() override { ++synchronizations; }
  std::string clockName() const override { return "fake"; }
  std::unique_ptr<StreamHold> holdStream(std::string&) override {
    ++holds;
    events.push_back("hold");
    return std::make_unique<Hold>(*this);
  }
  bool flushCache(std::string&) override {
    ++flushes;
    events.push_back("flush");
    return true;
  }
  std::unique_ptr<GraphReplay> captureGraph(const std::function<void()>& body,
                                            std::string& why_not) override {
    if (!can_capture) {
      why_not = "capture refused";
      return nullptr;
    }
    return std::make_unique<Replay>(*this, body);
  }
  std::optional<SmClock> smClock() override { return SmClock{1980, 1980, ""}; }
  void anchorClock() override {
    ++synchronizations;
    events.push_back("anchor");
  }
  double anchor_host = 1000;
};

// The host's clock, running with the fake device's: the host waits for every sample, so wall time
// is the device's time plus what the test adds for the host's own work.
class FakeWallClock final : public WallClock {
 public:
  explicit FakeWallClock(const FakeDevice& device) : device_(device) {}
  double host_extra = 0;
  double seconds() override { return device_.now + host_extra; }

 private:
  const FakeDevice& device_;
};

// Another rank, as the RankAgreement sees it: its wishes are folded into every maximum.
class TwoRankAgreement final : public RankAgreement {
 public:
  std::deque<std::int64_t> other_rank;  // the other rank's next values; its last one repeats
  std::vector<std::int64_t> asked;

  double barrier() override { return 0; }
  std::int64_t maxOverRanks(std::int64_t value) override {
    asked.push_back(value);
    const std::int64_t other = other_rank.front();
    if (other_rank.size() > 1) other_rank.pop_front();
    return std::max(value, other);
  }
};

MeasureSettings quickRule() {
  MeasureSettings s;
  s.warmup = 2;
  s.min_sample_time = 1e-3;
  s.min_samples = 5;
  s.min_time = 0.01;
  s.max_noise = 0.005;
  s.max_time = 60;
  return s;
}

TEST(Measurer, ColdStartIsTimedAloneAndWarmupIsNotTimed) {
  FakeDevice device;
  LocalAgreement agreement;
  int runs = 0;
  MeasureSettings settings = quickRule();
  settings.loops = 1;
  settings.samples = 3;
  // The first execution costs 50 ms (context creation, allocator growth...), later ones 1 ms.
  const Measurement m = Measurer(device, agreement, settings).measure([&] {
    device.now += runs++ == 0 ? 0.05 : 0.001;
  });
  EXPECT_DOUBLE_EQ(m.cold, 0.05);
  EXPECT_EQ(runs, 1 + 2 + 3);  // cold + warm-up + samples
  ASSERT_EQ(m.values.size(), 3u);
  for (double v : m.values) EXPECT_NEAR(v, 0.001, 1e-12);
  EXPECT_EQ(m.stop_reason, "fixed sample count");
}

TEST(Measurer, AfterSampleRunsOnceAfterEveryTimedSampleOnly) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.loops = 1;
  settings.samples = 4;
  int syncs_when_body_ran = 0;
  int calls = 0;
  bool waited_every_time = true;
  const Measurement m = Measurer(device, agreement, settings)
                            .measure(
                                [&] {
                                  device.now += 0.001;
                                  syncs_when_body_ran = device.synchronizations;
                                },
                                [&] {
                                  ++calls;
                                  waited_every_time = waited_every_time &&
                                                      device.events.back() == "stop" &&
                                                      device.synchronizations > syncs_when_body_ran;
                                });
  EXPECT_EQ(calls, 4);  // not for the cold start, the warm-up or the timer's overhead
  EXPECT_EQ(m.values.size(), 4u);
  EXPECT_TRUE(waited_every_time);
}

TEST(Measurer, AutorangeMakesEverySampleLastTheMinimumSampleTime) {
  FakeDevice device;
  LocalAgreement agreement;
  // 40 us per execution, 1 ms per sample wanted: at least 25 loops.
  const Measurement m =
      Measurer(device, agreement, quickRule()).measure([&] { device.now += 40e-6; });
  EXPECT_GE(m.loops, 25);
  EXPECT_LT(m.loops, 25 * 3);
  for (double v : m.values) EXPECT_NEAR(v, 40e-6, 1e-12);
  EXPECT_TRUE(m.noise_target_met);
  EXPECT_EQ(m.stop_rule, StopRule::NoiseTarget);
  EXPECT_EQ(m.stop_reason, "noise target met (std/mean 0.00%)");
  EXPECT_GE(static_cast<int>(m.values.size()), 5);
}

TEST(Measurer, SampleTimeIsAtLeastAThousandTimesTheTimerOverhead) {
  FakeDevice device;
  device.empty_interval = 10e-6;  // 1000x = 10 ms, above the 1 ms minimum
  LocalAgreement agreement;
  const Measurement m =
      Measurer(device, agreement, quickRule()).measure([&] { device.now += 100e-6; });
  EXPECT_DOUBLE_EQ(m.timer_overhead, 10e-6);
  EXPECT_GE(m.loops * 100e-6, 10e-3);
}

TEST(Measurer, HostTimeIsReportedBesideDeviceTime) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.samples = 4;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  ASSERT_EQ(m.host_values.size(), m.values.size());
  // The fake device "runs" in no host time: the host returns long before the device finishes.
  for (double h : m.host_values) EXPECT_LT(h, 1e-3);
}

// The defaults a user gets, with one execution per sample and no warm-up to keep counts simple.
MeasureSettings defaultRule() {
  MeasureSettings s;
  s.warmup = 0;
  s.loops = 1;
  return s;
}

// A body whose executions take the next of `durations` on the fake device (the last repeats).
std::function<void()> timedBody(FakeDevice& device, const std::vector<double>& durations,
                                std::size_t& executions) {
  return [&device, &durations, &executions] {
    device.now += durations[std::min(executions++, durations.size() - 1)];
  };
}

TEST(Measurer, AStableNoisySeriesStopsEarlyWithTheMediansUncertainty) {
  FakeDevice device;
  FakeWallClock wall(device);
  LocalAgreement agreement;
  // 2 ms executions spreading by 2%: std/mean stays near 2%, far above the 0.5% noise target.
  const std::vector<double> durations = testing::stableSeries(20000, 2e-3, 0.02, 21);
  std::size_t executions = 0;
  const Measurement m = Measurer(device, agreement, defaultRule(), wall)
                            .measure(timedBody(device, durations, executions));
  EXPECT_EQ(m.stop_rule, StopRule::Converged);
  EXPECT_EQ(m.stop_reason.rfind("estimate converged (median ±0.", 0), 0u) << m.stop_reason;
  EXPECT_GT(m.noise, 0.015);
  EXPECT_FALSE(m.noise_target_met);
  EXPECT_LT(m.wall.sampling, 1.0);  // against --max-time's 15 s
  EXPECT_LE(medianUncertainty(m.values), defaultRule().ci_target);
}

TEST(Measurer, AStartUpTransientIsLeftOutOfTheSamplesAndNoted) {
  FakeDevice device;
  FakeWallClock wall(device);
  LocalAgreement agreement;
  // 2 ms executions spreading by 2%, the first 120 of them 20% slower.
  const std::vector<double> durations =
      testing::withTransient(testing::stableSeries(20000, 2e-3, 0.02, 30), 120, 1.2);
  std::size_t executions = 0;
  const Measurement m = Measurer(device, agreement, defaultRule(), wall)
                            .measure(timedBody(device, durations, executions));
  // What is left holds the steady level only, with host times to match.
  std::vector<double> sorted = m.values;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(sorted[sorted.size() / 2], 2e-3, 2e-3 * 0.005);
  EXPECT_LT(sorted.back(), 2e-3 * 1.15);  // none of the 20% slower ones
  EXPECT_EQ(m.host_values.size(), m.values.size());
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("a start-up transient (their median +2"), std::string::npos)
      << m.notes[0];
}

TEST(Measurer, EveryRankLeavesOutTheLongestTransientAnyRankFound) {
  MeasureSettings settings = defaultRule();
  const std::vector<double> durations = testing::stableSeries(20000, 2e-3, 0.02, 41);
  // Alone, this rank's steady samples have no transient to leave out.
  FakeDevice alone_device;
  FakeWallClock alone_wall(alone_device);
  LocalAgreement alone_agreement;
  std::size_t alone_executions = 0;
  const Measurement alone = Measurer(alone_device, alone_agreement, settings, alone_wall)
                                .measure(timedBody(alone_device, durations, alone_executions));
  ASSERT_TRUE(alone.notes.empty());
  const std::size_t own_count = alone.values.size();
  ASSERT_GT(own_count, 80u);

  // Beside a rank that stops when this one does and found a 40-sample transient in its own.
  FakeDevice device;
  FakeWallClock wall(device);
  TwoRankAgreement agreement;
  agreement.other_rank.assign(own_count - 1, static_cast<std::int64_t>(StopState::Continue));
  agreement.other_rank.push_back(static_cast<std::int64_t>(StopState::Done));
  agreement.other_rank.push_back(40);
  std::size_t executions = 0;
  const Measurement m =
      Measurer(device, agreement, settings, wall).measure(timedBody(device, durations, executions));
  EXPECT_EQ(agreement.asked.back(), 0);  // this rank's own transient: none
  EXPECT_EQ(m.values.size(), own_count - 40);
  EXPECT_EQ(m.host_values.size(), m.values.size());
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("the first 40 samples"), std::string::npos) << m.notes[0];
}

TEST(Measurer, ADriftingSeriesKeepsSamplingUntilMaxTime) {
  FakeDevice device;
  FakeWallClock wall(device);
  LocalAgreement agreement;
  MeasureSettings settings = defaultRule();
  settings.max_time = 5;
  const std::vector<double> durations = testing::driftingSeries(20000, 2e-3, 0.03, 2e-4, 22);
  std::size_t executions = 0;
  const Measurement m =
      Measurer(device, agreement, settings, wall).measure(timedBody(device, durations, executions));
  EXPECT_EQ(m.stop_rule, StopRule::TimeLimit);
  EXPECT_EQ(m.stop_reason.rfind("max-time reached, the median still moving (", 0), 0u)
      << m.stop_reason;
  EXPECT_FALSE(m.noise_target_met);
  EXPECT_GE(m.wall.sampling, 5.0);
  // It stops at the first sample past the limit (about 3 ms long by then).
  EXPECT_LT(m.wall.sampling, 5.0 + 5e-3);
}

TEST(Measurer, NeverStopsBeforeMinSamplesNorANoisyCaseBeforeMinTime) {
  FakeDevice device;
  FakeWallClock wall(device);
  LocalAgreement agreement;
  // Samples of 1 ms with no spread meet every rule at once, but for the minimum count.
  MeasureSettings settings = defaultRule();
  settings.min_samples = 40;
  settings.min_time = 0.01;
  const auto body = [&] { device.now += 1e-3; };
  EXPECT_EQ(Measurer(device, agreement, settings, wall).measure(body).values.size(), 40u);
  // Quiet, they need no min_time; spreading by 1%, their interval waits for it.
  settings.min_samples = 10;
  settings.min_time = 0.0595;  // reached by the 60th sample
  EXPECT_EQ(Measurer(device, agreement, settings, wall).measure(body).values.size(), 10u);
  const std::vector<double> durations = testing::stableSeries(1000, 1e-3, 0.01, 38);
  std::size_t executions = 0;
  const Measurement noisy =
      Measurer(device, agreement, settings, wall).measure(timedBody(device, durations, executions));
  EXPECT_EQ(noisy.stop_rule, StopRule::Converged);
  EXPECT_GE(std::accumulate(noisy.values.begin(), noisy.values.end(), 0.0), 0.0595);
  EXPECT_LE(noisy.values.size(), 62u);
}

TEST(Measurer, WallTimeOfEachPhaseSaysWhereTheCaseWent) {
  FakeDevice device;
  FakeWallClock wall(device);
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.loops = 1;
  settings.samples = 4;
  int runs = 0;
  const Measurement m = Measurer(device, agreement, settings, wall).measure([&] {
    device.now += runs++ == 0 ? 0.05 : 0.001;
  });
  EXPECT_DOUBLE_EQ(m.wall.cold_start, 0.05);
  EXPECT_NEAR(m.wall.warm_up, 2 * 0.001, 1e-12);
  EXPECT_NEAR(m.wall.prepare, 0, 1e-12);  // fixed loops: only the timer's empty intervals
  EXPECT_NEAR(m.wall.sampling, 4 * 0.001, 1e-12);
}

TEST(Measurer, ARanksTimeLimitStopsEveryRankAndEachNamesIt) {
  FakeDevice device;
  FakeWallClock wall(device);
  TwoRankAgreement agreement;
  // The other rank's time runs out after its third sample.
  agreement.other_rank = {static_cast<std::int64_t>(StopState::Continue),
                          static_cast<std::int64_t>(StopState::Continue),
                          static_cast<std::int64_t>(StopState::TimeLimit), 0};  // no transient
  const Measurement m =
      Measurer(device, agreement, defaultRule(), wall).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(m.values.size(), 3u);
  EXPECT_EQ(m.stop_rule, StopRule::TimeLimit);
  EXPECT_EQ(m.stop_reason, "max-time reached");
}

TEST(Measurer, ARanksSweepShareStopsEveryRankAndEachNamesTheBudget) {
  FakeDevice device;
  FakeWallClock wall(device);
  TwoRankAgreement agreement;
  // The other rank's share of the sweep's budget runs out after its 25th sample (its clock ran
  // ahead); this rank's, the same share on its own clock, has not yet.
  agreement.other_rank.assign(24, static_cast<std::int64_t>(StopState::Continue));
  agreement.other_rank.push_back(static_cast<std::int64_t>(StopState::TimeLimit));
  agreement.other_rank.push_back(0);  // no transient
  MeasureSettings settings = defaultRule();
  settings.loops = 1;
  settings.sweep_share = 1;
  std::size_t executions = 0;
  const std::vector<double> durations = testing::stableSeries(1000, 2e-3, 0.05, 37);
  const Measurement m =
      Measurer(device, agreement, settings, wall).measure(timedBody(device, durations, executions));
  EXPECT_EQ(m.values.size(), 25u);
  EXPECT_EQ(m.stop_rule, StopRule::SweepTime);
  EXPECT_EQ(m.stop_reason.rfind("sweep-time share reached (median ±", 0), 0u) << m.stop_reason;
}

TEST(Measurer, LoopsAreTheMaximumAnyRankNeeds) {
  FakeDevice device;
  TwoRankAgreement agreement;
  // The other rank needs 500 loops (twice, while autorange settles), then is done sampling.
  agreement.other_rank = {500, 500, 0};
  MeasureSettings settings = quickRule();
  settings.samples = 3;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 40e-6; });
  EXPECT_EQ(m.loops, 500);
}

TEST(Measurer, SamplingContinuesWhileAnyRankNeedsMore) {
  FakeDevice device;
  TwoRankAgreement agreement;
  // Loop agreement first (0: no wish), then the other rank says Continue for a while, then Done.
  agreement.other_rank = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  MeasureSettings settings = quickRule();
  settings.loops = 10;
  settings.min_time = 0;
  const Measurement alone =
      Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  const std::size_t own_count = alone.values.size();
  EXPECT_EQ(own_count, 5u);  // min_samples with zero noise

  TwoRankAgreement slow_peer;
  slow_peer.other_rank.assign(own_count + 7, static_cast<std::int64_t>(StopState::Continue));
  slow_peer.other_rank.push_back(static_cast<std::int64_t>(StopState::Done));
  const Measurement together =
      Measurer(device, slow_peer, settings).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(together.values.size(), own_count + 8);
}

TEST(Measurer, CacheFlushComesBeforeEverySampleWithOneLoopEach) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.l2_flush = true;
  settings.samples = 4;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(m.loops, 1);
  EXPECT_EQ(device.flushes, 4);
  // Each flush is queued before its sample's start event, outside the timed interval.
  for (std::size_t i = 0; i + 1 < device.events.size(); ++i) {
    if (device.events[i] == "flush") {
      EXPECT_EQ(device.events[i + 1], "start");
    }
  }
  EXPECT_NE(m.method.find("cache flushed"), std::string::npos);
}

TEST(Measurer, QueuedStartHoldsTheStreamUntilTheSampleIsQueued) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.queued_start = true;
  settings.loops = 4;
  settings.samples = 3;
  Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(device.holds, 3);
  EXPECT_EQ(device.releases, 3);
  // hold, start, stop, release: the release comes after the whole sample was queued.
  const auto hold = std::find(device.events.begin(), device.events.end(), "hold");
  ASSERT_NE(hold, device.events.end());
  EXPECT_EQ(std::vector<std::string>(hold, hold + 4),
            (std::vector<std::string>{"hold", "start", "stop", "release"}));
}

TEST(Measurer, SamplesOfFewExecutionsGetAHeadStartUpToTheSuitesBound) {
  for (const int loops : {1, 3, 16, 17}) {
    FakeDevice device;
    LocalAgreement agreement;
    MeasureSettings settings = quickRule();
    settings.head_start_up_to = 16;
    settings.loops = loops;
    settings.samples = 3;
    const Measurement m = Measurer(device, agreement, settings).measure([&] {
      device.now += 1e-3;
      device.events.push_back("run");
    });
    const bool held = loops <= 16;
    EXPECT_EQ(device.holds, held ? 3 : 0) << loops << " loops";
    EXPECT_EQ(device.releases, device.holds);
    if (!held) {
      EXPECT_EQ(m.method.find("start"), std::string::npos) << m.method;
      continue;
    }
    // One execution is queued behind the hold, the rest launched after its release; a sample
    // of one execution is queued whole.
    const auto hold = std::find(device.events.begin(), device.events.end(), "hold");
    ASSERT_NE(hold, device.events.end());
    std::vector<std::string> expected = {"hold", "start", "run"};
    if (loops > 1) expected.push_back("release");
    for (int l = 1; l < loops; ++l) expected.push_back("run");
    expected.push_back("stop");
    if (loops == 1) expected.push_back("release");
    EXPECT_EQ(std::vector<std::string>(hold, hold + static_cast<long>(expected.size())), expected)
        << loops << " loops";
    EXPECT_NE(m.method.find(loops == 1 ? "queued start" : "head start"), std::string::npos)
        << m.method;
  }
}

TEST(Measurer, QueuedStartIsDroppedWhenTheBatchWouldOverflowTheLaunchQueue) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.queued_start = true;
  settings.loops = Measurer::kMaxQueuedLoops + 1;
  settings.samples = 2;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 1e-6; });
  EXPECT_EQ(device.holds, 0);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("overflow the launch queue"), std::string::npos);
}

TEST(Measurer, CudaGraphReplaysTheBodyOrFallsBackWithAReason) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.cuda_graph = true;
  settings.loops = 2;
  settings.samples = 3;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(device.replays, 2 * 3);
  EXPECT_EQ(m.method, "CUDA graph replays");

  FakeDevice refusing;
  refusing.can_capture = false;
  const Measurement fallback =
      Measurer(refusing, agreement, settings).measure([&] { refusing.now += 1e-3; });
  EXPECT_EQ(fallback.method, "back-to-back");
  ASSERT_EQ(fallback.notes.size(), 1u);
  EXPECT_EQ(fallback.notes[0], "capture refused; timed without a graph");
}

TEST(Measurer, ClocksAreReadWhenTimingStartsAndEnds) {
  FakeDevice device;
  LocalAgreement agreement;
  MeasureSettings settings = quickRule();
  settings.samples = 1;
  const Measurement m = Measurer(device, agreement, settings).measure([&] { device.now += 1e-3; });
  ASSERT_TRUE(m.clock_at_start && m.clock_at_end);
  EXPECT_EQ(m.clock_at_end->max_mhz, 1980u);
}

TEST(Measurer, WarmupByTimeRunsUntilEveryRanksTimeIsUp) {
  FakeDevice device;
  TwoRankAgreement agreement;
  // The other rank still wants warm-up for the first 3 exchanges, then nothing.
  agreement.other_rank = {1, 1, 1, 0};
  MeasureSettings settings = quickRule();
  settings.warmup = 0;
  settings.warmup_time = 1e-9;  // this rank's own time is up at once
  settings.loops = 1;
  settings.samples = 1;
  int runs = 0;
  Measurer(device, agreement, settings).measure([&] {
    ++runs;
    device.now += 1e-3;
  });
  EXPECT_EQ(runs, 1 + 3 + 1);  // cold, three warm-ups for the other rank, one sample
}

TEST(Measurer, WithATimelineEveryTimedExecutionIsAnchoredOutsideItsInterval) {
  FakeDevice device;
  LocalAgreement agreement;
  Timeline timeline(true, true);
  timeline.setCase("matmul bf16 n=8192");
  MeasureSettings settings = quickRule();
  settings.loops = 2;
  settings.samples = 3;
  const Measurement m =
      Measurer(device, agreement, settings, &timeline).measure([&] { device.now += 1e-3; });
  // Each interval placed on the host's clock starts after an anchor, and no anchor falls
  // between a start and its stop.
  bool anchored = false;
  bool inside = false;
  for (const std::string& event : device.events) {
    if (event == "anchor") {
      EXPECT_FALSE(inside) << "an anchor inside a timed interval";
      anchored = true;
    } else if (event == "start") {
      inside = true;
    } else if (event == "stop") {
      inside = false;
    }
  }
  EXPECT_TRUE(anchored);
  std::vector<const TimelineSpan*> samples;
  std::vector<std::string> host;
  for (const TimelineSpan& span : timeline.spans()) {
    if (span.track == Track::Work && span.kind == span_kind::kSample) samples.push_back(&span);
    if (span.track == Track::Host) host.push_back(span.name);
    EXPECT_EQ(span.label, "matmul bf16 n=8192");
  }
  ASSERT_EQ(samples.size(), m.values.size());
  for (const TimelineSpan* span : samples) {
    EXPECT_EQ(span->name, "matmul bf16 n=8192");
    EXPECT_NEAR(span->span.end - span->span.start, 2e-3, 1e-12);  // two loops of 1 ms
  }
  EXPECT_EQ(host, (std::vector<std::string>{"cold start", "warm-up", "prepare", "samples"}));
}

TEST(Measurer, WithoutATimelineNothingIsAnchored) {
  FakeDevice device;
  LocalAgreement agreement;
  Timeline disabled;
  MeasureSettings settings = quickRule();
  settings.samples = 3;
  Measurer(device, agreement, settings, &disabled).measure([&] { device.now += 1e-3; });
  EXPECT_EQ(std::count(device.events.begin(), device.events.end(), "anchor"), 0);
  EXPECT_TRUE(disabled.spans().empty());
}

}  // namespace
}  // namespace splitstep
