#include "telemetry/TelemetrySampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/HostClock.hpp"

namespace splitstep {
namespace {

// Counts its readings; the reading's SM clock is its number.
class CountingSource final : public TelemetrySource {
 public:
  explicit CountingSource(std::atomic<int>& count, bool empty = false)
      : count_(count), empty_(empty) {}
  std::optional<TelemetryReading> read() override {
    const int n = ++count_;
    if (empty_) return std::nullopt;
    TelemetryReading r;
    r.time = hostSeconds();
    r.set(TelemetryQuantity::SmClock, n);
    return r;
  }

 private:
  std::atomic<int>& count_;
  bool empty_;
};

void waitFor(const std::atomic<int>& count, int at_least) {
  const double deadline = hostSeconds() + 10;
  while (count < at_least && hostSeconds() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(count, at_least) << "the sampler did not read within 10 s";
}

TEST(TelemetrySampler, ReadsEveryIntervalInTimeOrder) {
  constexpr double kInterval = 0.005;
  std::atomic<int> count{0};
  std::vector<std::unique_ptr<TelemetrySource>> sources;
  sources.push_back(std::make_unique<CountingSource>(count));
  const double start = hostSeconds();
  TelemetrySampler sampler(std::move(sources), kInterval);
  waitFor(count, 6);
  const std::vector<TelemetryReading> readings = sampler.all();
  ASSERT_GE(readings.size(), 5u);
  for (std::size_t i = 1; i < readings.size(); ++i) {
    // Ticks at a fixed rate from the start, each reading at or after its tick: reading i never
    // comes before i intervals have passed. (Two readings may lie closer than an interval: one
    // woken late, the next on time.)
    EXPECT_GE(readings[i].time, start + static_cast<double>(i) * kInterval) << i;
    EXPECT_GT(readings[i].time, readings[i - 1].time) << i;
    EXPECT_GT(readings[i].value(TelemetryQuantity::SmClock),
              readings[i - 1].value(TelemetryQuantity::SmClock));
  }
}

TEST(TelemetrySampler, SelectsReadingsByTimeAndMergesItsSources) {
  std::atomic<int> first{0};
  std::atomic<int> second{0};
  std::vector<std::unique_ptr<TelemetrySource>> sources;
  sources.push_back(std::make_unique<CountingSource>(first));
  sources.push_back(std::make_unique<CountingSource>(second));
  TelemetrySampler sampler(std::move(sources), 0.002);
  waitFor(first, 5);
  waitFor(second, 5);
  const std::vector<TelemetryReading> all = sampler.all();
  ASSERT_GE(all.size(), 10u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LE(all[i - 1].time, all[i].time);
  const double from = all[2].time;
  const double to = all[all.size() - 3].time;
  const std::vector<TelemetryReading> some = sampler.readings(from, to);
  EXPECT_EQ(some.size(), all.size() - 4);
  EXPECT_DOUBLE_EQ(some.front().time, from);
  EXPECT_DOUBLE_EQ(some.back().time, to);
}

TEST(TelemetrySampler, KeepsNothingForAnEmptyReadingAndStopsPromptly) {
  std::atomic<int> count{0};
  std::vector<std::unique_ptr<TelemetrySource>> sources;
  sources.push_back(std::make_unique<CountingSource>(count, true));
  const auto start = std::chrono::steady_clock::now();
  {
    // An interval far longer than the test: stopping must not wait for the next tick.
    TelemetrySampler sampler(std::move(sources), 10);
    waitFor(count, 1);
    EXPECT_TRUE(sampler.all().empty());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace splitstep
