#include <gtest/gtest.h>

#include "GpuSkip.hpp"
#include "common/HostClock.hpp"
#include "device/CudaCheck.hpp"
#include "device/Device.hpp"
#include "measure/Measurer.hpp"
#include "measure/RankAgreement.hpp"

namespace splitstep {
namespace {

Watchdog& watchdog() {
  static Watchdog instance(60);
  return instance;
}

TEST(CpuDevice, TimesWithTheHostClock) {
  const auto device = openDevice({false, 0}, watchdog());
  EXPECT_FALSE(device->isCuda());
  EXPECT_EQ(device->label(), "cpu");
  EXPECT_EQ(device->stream(), nullptr);
  EXPECT_EQ(device->clockName(), "host (steady clock)");
}

TEST(CudaDevice, OpensTheAssignedGpuWithItsOwnStream) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  EXPECT_TRUE(device->isCuda());
  EXPECT_EQ(device->label(), "cuda:0");
  EXPECT_FALSE(device->name().empty());
  EXPECT_NE(device->stream(), nullptr);
  EXPECT_EQ(device->clockName(), "device (CUDA events)");
}

TEST(CudaDevice, EventsMeasureWorkQueuedOnTheWorkingStream) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  void* buffer = nullptr;
  const std::size_t bytes = 1ull << 30;
  SPLITSTEP_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  LocalAgreement agreement;
  MeasureSettings settings;
  settings.warmup = 1;
  settings.samples = 3;
  settings.loops = 4;
  const Measurement m = Measurer(*device, agreement, settings).measure([&] {
    SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, 1, bytes, device->stream()));
  });
  SPLITSTEP_CUDA_CHECK(cudaFree(buffer));
  ASSERT_EQ(m.values.size(), 3u);
  // Writing 1 GiB takes between ~0.1 ms (10 TB/s, faster than any HBM) and 1 s.
  for (double v : m.values) {
    EXPECT_GT(v, 1e-4);
    EXPECT_LT(v, 1.0);
  }
  // Queuing a memset takes the host microseconds: far less than the device needs.
  for (double h : m.host_values) EXPECT_LT(h, m.values.front());
}

TEST(CudaDevice, ATimerOnAnotherStreamMeasuresThatStreamsWork) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  cudaStream_t other = nullptr;
  SPLITSTEP_CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  void* buffer = nullptr;
  const std::size_t bytes = 1ull << 30;
  SPLITSTEP_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  const auto on_other = device->newTimer(other);
  const auto on_working = device->newTimer();
  // The working stream's timer, with no work on its stream, still spans the host's enqueueing
  // between its two events (about 30 us on an H200 node): the other stream's work must be long
  // beside that for the comparison to be decisive, so it writes 1 GiB 16 times (some 5 ms).
  constexpr int kWrites = 16;
  on_other->start();
  on_working->start();
  for (int i = 0; i < kWrites; ++i) {
    SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, i, bytes, other));
  }
  on_other->stop();
  on_working->stop();
  SPLITSTEP_CUDA_CHECK(cudaStreamSynchronize(other));
  device->synchronize();
  // The writes ran on `other` only: its timer saw 16 GiB written, the working stream's nothing.
  EXPECT_GT(on_other->seconds(), kWrites * 1e-4);
  EXPECT_LT(on_working->seconds(), on_other->seconds() / 10);
  SPLITSTEP_CUDA_CHECK(cudaFree(buffer));
  SPLITSTEP_CUDA_CHECK(cudaStreamDestroy(other));
}

TEST(CudaDevice, TimingAidsWorkOnTheGpu) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  void* buffer = nullptr;
  const std::size_t bytes = 64ull << 20;
  SPLITSTEP_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  LocalAgreement agreement;
  MeasureSettings settings;
  settings.samples = 5;
  settings.queued_start = true;
  settings.l2_flush = true;
  settings.cuda_graph = true;
  const Measurement m = Measurer(*device, agreement, settings).measure([&] {
    SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, 1, bytes, device->stream()));
  });
  SPLITSTEP_CUDA_CHECK(cudaFree(buffer));
  EXPECT_EQ(m.method, "CUDA graph replays, cache flushed before each sample, queued start");
  EXPECT_TRUE(m.notes.empty()) << m.notes.front();
  EXPECT_EQ(m.values.size(), 5u);
}

TEST(CudaDevice, SmClockComesFromNvml) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  const auto clock = device->smClock();
  ASSERT_TRUE(clock) << "NVML did not answer";
  EXPECT_GT(clock->max_mhz, 500u);
  EXPECT_LE(clock->current_mhz, clock->max_mhz);
}

TEST(CpuDevice, TimersAndMarksLieOnTheHostClockAndTheCpuHasNoTelemetry) {
  const auto device = openDevice({false, 0}, watchdog());
  const auto timer = device->newTimer();
  const double before = hostSeconds();
  timer->start();
  timer->stop();
  const double after = hostSeconds();
  const auto span = timer->hostSpan();
  ASSERT_TRUE(span);
  EXPECT_LE(before, span->start);
  EXPECT_LE(span->end, after);
  const auto mark = device->newMark(nullptr);
  mark->record();
  const std::optional<double> marked = mark->hostTime();
  ASSERT_TRUE(marked);
  EXPECT_LE(after, *marked);
  EXPECT_LE(*marked, hostSeconds());
  std::string why_not;
  EXPECT_TRUE(device->telemetrySources(why_not).empty());
  EXPECT_EQ(why_not, "a CPU rank has no GPU to sample");
}

TEST(CudaDevice, AnchoredTimersAndMarksLieOnTheHostClockWhereTheirWorkRan) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  void* buffer = nullptr;
  const std::size_t bytes = 4ull << 30;
  SPLITSTEP_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  const auto timer = device->newTimer();
  cudaStream_t other = nullptr;
  SPLITSTEP_CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  const auto on_other = device->newTimer(other);
  const auto mark = device->newMark(other);
  EXPECT_FALSE(timer->hostSpan()) << "no anchor yet";
  device->anchorClock();
  const double queued = hostSeconds();
  timer->start();
  SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, 1, bytes, device->stream()));
  timer->stop();
  on_other->start();
  SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, 2, bytes, other));
  on_other->stop();
  mark->record();
  device->synchronize();
  SPLITSTEP_CUDA_CHECK(cudaStreamSynchronize(other));
  const double finished = hostSeconds();
  const auto span = timer->hostSpan();
  const auto other_span = on_other->hostSpan();
  ASSERT_TRUE(span && other_span);
  // The work ran after it was queued and before the host saw it finish; the anchor's own
  // error is microseconds.
  constexpr double kAnchorError = 50e-6;
  EXPECT_GE(span->start, queued - kAnchorError);
  EXPECT_LE(span->end, finished + kAnchorError);
  EXPECT_NEAR(span->end - span->start, timer->seconds(), 1e-6);
  // A timer of another stream of the same device is placed through the same anchor.
  EXPECT_GE(other_span->start, queued - kAnchorError);
  EXPECT_LE(other_span->end, finished + kAnchorError);
  EXPECT_NEAR(other_span->end - other_span->start, on_other->seconds(), 1e-6);
  // So is a mark: this one came right after the other stream's timer stopped.
  const std::optional<double> marked = mark->hostTime();
  ASSERT_TRUE(marked);
  EXPECT_NEAR(*marked, other_span->end, kAnchorError);
  EXPECT_LE(*marked, finished + kAnchorError);
  SPLITSTEP_CUDA_CHECK(cudaStreamDestroy(other));
  SPLITSTEP_CUDA_CHECK(cudaFree(buffer));
}

TEST(CudaDevice, TelemetryComesFromNvml) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0}, watchdog());
  std::string why_not;
  auto sources = device->telemetrySources(why_not);
  ASSERT_FALSE(sources.empty()) << why_not;
  const double before = hostSeconds();
  const std::optional<TelemetryReading> reading = sources.front()->read();
  ASSERT_TRUE(reading);
  EXPECT_GE(reading->time, before);
  EXPECT_LE(reading->time, hostSeconds());
  EXPECT_GT(reading->value(TelemetryQuantity::SmClock), 0);
  EXPECT_GT(reading->value(TelemetryQuantity::MemClock), 0);
  EXPECT_GT(reading->value(TelemetryQuantity::PowerLimit), 50);
  EXPECT_TRUE(reading->has(TelemetryQuantity::Power) ||
              reading->has(TelemetryQuantity::PowerAverage));
  EXPECT_GT(reading->value(TelemetryQuantity::Temperature), 0);
  EXPECT_TRUE(reading->clock_limits);
}

}  // namespace
}  // namespace splitstep
