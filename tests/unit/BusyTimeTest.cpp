#include "suites/step/BusyTime.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

constexpr auto kData = static_cast<std::size_t>(Phase::Data);
constexpr auto kForward = static_cast<std::size_t>(Phase::Forward);
constexpr auto kBackward = static_cast<std::size_t>(Phase::Backward);
constexpr auto kSync = static_cast<std::size_t>(Phase::Sync);

// Microseconds as the profiler's nanoseconds.
constexpr std::uint64_t us(std::uint64_t t) { return t * 1000; }

TEST(BusyTime, EachPhaseHoldsTheWorkLaunchedWithinItWhereverItRan) {
  // One step: data [0, 10) us, forward [10, 40), backward [40, 100) on the host.
  const std::vector<ProfiledPhase> phases = {{Phase::Backward, us(40), us(100)},
                                             {Phase::Data, us(0), us(10)},
                                             {Phase::Forward, us(10), us(40)}};
  // Launched in data (a copy), forward (two kernels), backward (one kernel, which runs long
  // after the backward's host scope ended: the GPU is behind).
  const std::vector<ProfiledLaunch> launches = {{1, us(2)}, {2, us(12)}, {3, us(20)}, {4, us(50)}};
  const std::vector<ProfiledWork> work = {
      {1, us(5), us(9)}, {2, us(30), us(60)}, {3, us(60), us(70)}, {4, us(300), us(400)}};
  const std::vector<StepBusy> busy = busyTimes(phases, launches, work);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_DOUBLE_EQ(busy[0].phases[kData], 4e-6);
  EXPECT_DOUBLE_EQ(busy[0].phases[kForward], 40e-6);
  EXPECT_DOUBLE_EQ(busy[0].phases[kBackward], 100e-6);
  EXPECT_DOUBLE_EQ(busy[0].phases[kSync], 0);
  EXPECT_DOUBLE_EQ(busy[0].step, 144e-6);
}

TEST(BusyTime, WorkThatOverlapsOnTwoStreamsCountsOnce) {
  const std::vector<ProfiledPhase> phases = {{Phase::Data, us(0), us(1)},
                                             {Phase::Backward, us(1), us(100)}};
  // A backward kernel [10, 50) and a collective on the other stream [30, 80), launched from a
  // gradient hook.
  const std::vector<ProfiledLaunch> launches = {{7, us(2)}, {8, us(3)}};
  const std::vector<ProfiledWork> work = {{7, us(10), us(50)}, {8, us(30), us(80)}};
  const std::vector<StepBusy> busy = busyTimes(phases, launches, work);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_DOUBLE_EQ(busy[0].phases[kBackward], 70e-6);
  EXPECT_DOUBLE_EQ(busy[0].step, 70e-6);
}

TEST(BusyTime, AStepBeginsAtEachDataPhase) {
  std::vector<ProfiledPhase> phases;
  std::vector<ProfiledLaunch> launches;
  std::vector<ProfiledWork> work;
  for (std::uint64_t s = 0; s < 3; ++s) {
    const std::uint64_t t = us(1000 * s);
    phases.push_back({Phase::Data, t, t + us(10)});
    phases.push_back({Phase::Forward, t + us(10), t + us(500)});
    // Step s's forward kernel lasts s + 1 us.
    launches.push_back({s + 1, t + us(20)});
    work.push_back({s + 1, t + us(30), t + us(31 + s)});
  }
  const std::vector<StepBusy> busy = busyTimes(phases, launches, work);
  ASSERT_EQ(busy.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_DOUBLE_EQ(busy[s].phases[kForward], static_cast<double>(s + 1) * 1e-6) << s;
    EXPECT_DOUBLE_EQ(busy[s].phases[kData], 0) << s;
  }
}

TEST(BusyTime, WorkLaunchedOutsideEveryPhaseOrWithoutItsLaunchIsLeftOut) {
  const std::vector<ProfiledPhase> phases = {{Phase::Data, us(0), us(10)},
                                             {Phase::Forward, us(20), us(30)}};
  // Launched between data and forward, after forward, before everything; one with no launch.
  const std::vector<ProfiledLaunch> launches = {{1, us(15)}, {2, us(31)}, {3, us(25)}};
  const std::vector<ProfiledWork> work = {
      {1, us(40), us(50)}, {2, us(40), us(50)}, {3, us(40), us(45)}, {9, us(40), us(60)}};
  const std::vector<StepBusy> busy = busyTimes(phases, launches, work);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_DOUBLE_EQ(busy[0].phases[kForward], 5e-6);
  EXPECT_DOUBLE_EQ(busy[0].step, 5e-6);
  EXPECT_TRUE(busyTimes({}, launches, work).empty());
}

TEST(BusyTime, EveryPhaseHasItsOwnScopeName) {
  EXPECT_EQ(phaseScope(Phase::Forward), "splitstep phase forward");
  for (Phase a : kPhases) {
    for (Phase b : kPhases) {
      if (a != b) {
        EXPECT_NE(phaseScope(a), phaseScope(b));
      }
    }
  }
}

TEST(BusyTime, AReplaysWorkIsAllThatItsOneLaunchQueued) {
  // Two replays on the host, [0, 5) and [100, 105) us; each launch queues a graph of kernels
  // that share its correlation, the first two of them overlapping on two streams.
  const std::vector<ProfiledScope> scopes = {{us(0), us(5)}, {us(100), us(105)}};
  const std::vector<ProfiledLaunch> launches = {{1, us(1)}, {2, us(101)}, {3, us(200)}};
  const std::vector<ProfiledWork> work = {{1, us(10), us(40)},   {1, us(30), us(50)},
                                          {1, us(50), us(90)},   {2, us(110), us(130)},
                                          {3, us(210), us(220)},   // launched outside a replay
                                          {9, us(140), us(150)}};  // without its launch
  const std::vector<double> busy = busyPerScope(scopes, launches, work);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_DOUBLE_EQ(busy[0], 80e-6);
  EXPECT_DOUBLE_EQ(busy[1], 20e-6);
  EXPECT_NE(replayScope(), phaseScope(Phase::Data));
}

}  // namespace
}  // namespace splitstep
