#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "GpuSkip.hpp"
#include "device/CudaCheck.hpp"
#include "pattern.cuh"

namespace splitstep {
namespace {

using kernels::ExpectSpec;
using kernels::PatternType;

TEST(Pattern, ClosedFormSumEqualsTheSumOverRanks) {
  for (int world = 1; world <= 70; ++world) {
    for (std::uint64_t i : {0ull, 1ull, 5ull, 1234567ull}) {
      float brute = 0;
      for (int r = 0; r < world; ++r) brute += kernels::patternValue(i, r);
      ASSERT_EQ(kernels::patternSum(i, world), brute) << "world " << world << " index " << i;
    }
  }
}

TEST(Pattern, ABlockFromTheWrongOffsetDiffersAlmostEverywhere) {
  // Block sizes of power-of-two messages over 1..8 ranks, and one of three ranks.
  for (std::uint64_t shift : {1ull, 8ull, 16ull, 64ull, 4096ull, 1ull << 20, 1ull << 28, 333ull}) {
    std::uint64_t same = 0;
    for (std::uint64_t i = 0; i < 4096; ++i) {
      same += kernels::patternValue(i + shift, 1) == kernels::patternValue(i, 1) ? 1 : 0;
    }
    EXPECT_LT(same, 4096u / 8) << "shift " << shift;
  }
}

TEST(Pattern, ExpectedValuesFollowEachCollectivesLayout) {
  // Three ranks, blocks of 4 elements.
  EXPECT_EQ(kernels::expectedValue({true, 3, 0, 0, 0}, 5), kernels::patternSum(5, 3));
  // Reduce-scatter: rank 2 holds elements 8..11 of the sum.
  EXPECT_EQ(kernels::expectedValue({true, 3, 0, 0, 8}, 1), kernels::patternSum(9, 3));
  // Allgather: element 6 is rank 1's element 2.
  EXPECT_EQ(kernels::expectedValue({false, 3, 0, 4, 0}, 6), kernels::patternValue(2, 1));
  // Broadcast from rank 0.
  EXPECT_EQ(kernels::expectedValue({false, 3, 0, 0, 0}, 7), kernels::patternValue(7, 0));
  // All-to-all on rank 2: block 1 is rank 1's block 2 (elements 8..11 of rank 1).
  EXPECT_EQ(kernels::expectedValue({false, 3, 0, 4, 8}, 5), kernels::patternValue(9, 1));
}

TEST(Pattern, HostFillAndCheckAgreeInEveryType) {
  for (PatternType type : {PatternType::Float32, PatternType::BFloat16, PatternType::Float16}) {
    SCOPED_TRACE(static_cast<int>(type));
    const std::size_t bytes = type == PatternType::Float32 ? 4 : 2;
    std::vector<unsigned char> data(1000 * bytes);
    kernels::fillPatternOnHost(data.data(), 1000, type, 0);
    // One rank's own data is the "sum" over a world of one.
    const ExpectSpec own{true, 1, 0, 0, 0};
    EXPECT_EQ(kernels::countMismatchesOnHost(data.data(), 1000, type, own, 0.0f), 0u);
    std::memset(data.data() + 10 * bytes, 0x7f, bytes);  // one element becomes huge or NaN
    EXPECT_EQ(kernels::countMismatchesOnHost(data.data(), 1000, type, own, 0.01f), 1u);
    // Against a two-rank sum almost every element is wrong.
    EXPECT_GT(kernels::countMismatchesOnHost(data.data(), 1000, type, {true, 2, 0, 0, 0}, 0.0f),
              500u);
  }
}

TEST(Pattern, ToleranceIsRelativeToTheExpectedValueButAtLeastOne) {
  const ExpectSpec root{false, 1, 0, 0, 0};  // element 0 must be patternValue(0, 0) = 0
  float data[1] = {0.5f};
  EXPECT_EQ(kernels::countMismatchesOnHost(data, 1, PatternType::Float32, root, 0.0f), 1u);
  data[0] = 0.004f;  // within 1% of max(1, |0|)
  EXPECT_EQ(kernels::countMismatchesOnHost(data, 1, PatternType::Float32, root, 0.01f), 0u);
}

class PatternKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    SPLITSTEP_REQUIRE_GPU();
    SPLITSTEP_CUDA_CHECK(cudaMalloc(&data_, kCount * sizeof(float)));
    SPLITSTEP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&wrong_), sizeof(*wrong_)));
  }
  void TearDown() override {
    cudaFree(data_);
    cudaFree(wrong_);
  }
  unsigned long long countWrong(PatternType type, ExpectSpec spec) {
    SPLITSTEP_CUDA_CHECK(cudaMemset(wrong_, 0, sizeof(*wrong_)));
    SPLITSTEP_CUDA_CHECK(
        kernels::countMismatches(data_, kCount, type, spec, 0.0f, wrong_, nullptr));
    unsigned long long host = 0;
    SPLITSTEP_CUDA_CHECK(cudaMemcpy(&host, wrong_, sizeof(host), cudaMemcpyDeviceToHost));
    return host;
  }

  // Larger than the capped grid (4096 x 256), so the grid-stride loops are exercised.
  static constexpr std::size_t kCount = 3'000'001;
  void* data_ = nullptr;
  unsigned long long* wrong_ = nullptr;
};

TEST_F(PatternKernel, DeviceFillMatchesHostFillInEveryType) {
  for (PatternType type : {PatternType::Float32, PatternType::BFloat16, PatternType::Float16}) {
    SCOPED_TRACE(static_cast<int>(type));
    const std::size_t bytes = type == PatternType::Float32 ? 4 : 2;
    SPLITSTEP_CUDA_CHECK(cudaMemset(data_, 0xff, kCount * bytes));  // NaN poison
    SPLITSTEP_CUDA_CHECK(kernels::fillPattern(data_, kCount, type, 3, nullptr));
    std::vector<unsigned char> device(kCount * bytes);
    std::vector<unsigned char> host(kCount * bytes);
    SPLITSTEP_CUDA_CHECK(cudaMemcpy(device.data(), data_, device.size(), cudaMemcpyDeviceToHost));
    kernels::fillPatternOnHost(host.data(), kCount, type, 3);
    EXPECT_EQ(device, host);
  }
}

TEST_F(PatternKernel, CountsExactlyThePlantedMismatches) {
  SPLITSTEP_CUDA_CHECK(kernels::fillPattern(data_, kCount, PatternType::Float32, 0, nullptr));
  const ExpectSpec own{true, 1, 0, 0, 0};
  EXPECT_EQ(countWrong(PatternType::Float32, own), 0u);
  const float bad = 99.0f;
  for (std::size_t i : {std::size_t{0}, std::size_t{12345}, kCount - 1}) {
    SPLITSTEP_CUDA_CHECK(
        cudaMemcpy(static_cast<float*>(data_) + i, &bad, sizeof(bad), cudaMemcpyHostToDevice));
  }
  EXPECT_EQ(countWrong(PatternType::Float32, own), 3u);
  EXPECT_GT(countWrong(PatternType::Float32, {true, 2, 0, 0, 0}), kCount / 2);
}

}  // namespace
}  // namespace splitstep
