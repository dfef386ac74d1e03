#include <gtest/gtest.h>

#include "GpuSkip.hpp"
#include "device/CudaCheck.hpp"
#include "device/Device.hpp"
#include "measure/Measurer.hpp"

namespace splitstep {
namespace {

TEST(CpuDevice, TimesWithTheHostClock) {
  const auto device = openDevice({false, 0});
  EXPECT_FALSE(device->isCuda());
  EXPECT_EQ(device->label(), "cpu");
  EXPECT_EQ(device->stream(), nullptr);
  EXPECT_EQ(device->clockName(), "host (steady clock)");
}

TEST(CudaDevice, OpensTheAssignedGpuWithItsOwnStream) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0});
  EXPECT_TRUE(device->isCuda());
  EXPECT_EQ(device->label(), "cuda:0");
  EXPECT_FALSE(device->name().empty());
  EXPECT_NE(device->stream(), nullptr);
  EXPECT_EQ(device->clockName(), "device (CUDA events)");
}

TEST(CudaDevice, EventsMeasureWorkQueuedOnTheWorkingStream) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0});
  void* buffer = nullptr;
  const std::size_t bytes = 1ull << 30;
  SPLITSTEP_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  Measurer measurer(*device, {.warmup = 1, .samples = 3, .loops = 4});
  const auto values = measurer.measure(
      [&] { SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(buffer, 1, bytes, device->stream())); });
  SPLITSTEP_CUDA_CHECK(cudaFree(buffer));
  ASSERT_EQ(values.size(), 3u);
  // Writing 1 GiB takes between ~0.1 ms (10 TB/s, faster than any HBM) and 1 s.
  for (double v : values) {
    EXPECT_GT(v, 1e-4);
    EXPECT_LT(v, 1.0);
  }
}

}  // namespace
}  // namespace splitstep
