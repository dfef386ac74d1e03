#include "measure/Measurer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace splitstep {
namespace {

// A clock that advances only when the body runs, and records what the Measurer asked of it.
class FakeTimers final : public TimerSource {
 public:
  double now = 0;
  int synchronizations = 0;
  std::vector<int> body_runs_at_sync;
  int body_runs = 0;

  class Timer final : public IntervalTimer {
   public:
    explicit Timer(FakeTimers& owner) : owner_(owner) {}
    void start() override { start_ = owner_.now; }
    void stop() override { stop_ = owner_.now; }
    double seconds() const override { return stop_ - start_; }

   private:
    FakeTimers& owner_;
    double start_ = 0;
    double stop_ = 0;
  };

  std::unique_ptr<IntervalTimer> newTimer() override { return std::make_unique<Timer>(*this); }
  void synchronize() override {
    ++synchronizations;
    body_runs_at_sync.push_back(body_runs);
  }
  std::string clockName() const override { return "fake"; }
};

TEST(Measurer, WarmupIsUntimedAndEachSampleIsDividedByItsLoops) {
  FakeTimers timers;
  Measurer measurer(timers, {.warmup = 3, .samples = 4, .loops = 2});
  double cost = 1.0;  // each execution takes longer than the last: 1, 2, 3, ...
  const std::vector<double> values = measurer.measure([&] {
    timers.now += cost;
    cost += 1.0;
    ++timers.body_runs;
  });
  EXPECT_EQ(timers.body_runs, 3 + 4 * 2);
  // Warm-up took executions 1-3; samples are (4+5)/2, (6+7)/2, (8+9)/2, (10+11)/2.
  EXPECT_EQ(values, (std::vector<double>{4.5, 6.5, 8.5, 10.5}));
}

TEST(Measurer, SynchronizesAfterWarmupAndOnceAfterAllSamples) {
  FakeTimers timers;
  Measurer measurer(timers, {.warmup = 2, .samples = 5, .loops = 1});
  measurer.measure([&] { ++timers.body_runs; });
  EXPECT_EQ(timers.synchronizations, 2);
  EXPECT_EQ(timers.body_runs_at_sync, (std::vector<int>{2, 7}));
}

TEST(Measurer, NoWarmupMeansTheFirstExecutionIsTimed) {
  FakeTimers timers;
  Measurer measurer(timers, {.warmup = 0, .samples = 1, .loops = 1});
  const auto values = measurer.measure([&] { timers.now += 7.0; });
  EXPECT_EQ(values, (std::vector<double>{7.0}));
}

}  // namespace
}  // namespace splitstep
