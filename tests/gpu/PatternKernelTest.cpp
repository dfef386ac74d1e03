#include <gtest/gtest.h>

#include <vector>

#include "GpuSkip.hpp"
#include "device/CudaCheck.hpp"
#include "pattern.cuh"

namespace splitstep {
namespace {

TEST(Pattern, ClosedFormSumEqualsTheSumOverRanks) {
  for (int world = 1; world <= 70; ++world) {
    for (std::uint64_t i : {0ull, 1ull, 5ull, 1234567ull}) {
      float brute = 0;
      for (int r = 0; r < world; ++r) brute += kernels::patternValue(i, r);
      ASSERT_EQ(kernels::patternSum(i, world), brute) << "world " << world << " index " << i;
    }
  }
}

TEST(Pattern, ValuesDependOnRankAndIndex) {
  EXPECT_NE(kernels::patternValue(0, 0), kernels::patternValue(0, 1));
  EXPECT_NE(kernels::patternValue(0, 0), kernels::patternValue(1, 0));
}

class PatternKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    SPLITSTEP_REQUIRE_GPU();
    SPLITSTEP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), kCount * sizeof(float)));
    SPLITSTEP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&wrong_), sizeof(unsigned long long)));
  }
  void TearDown() override {
    cudaFree(data_);
    cudaFree(wrong_);
  }
  unsigned long long countWrong(int world) {
    SPLITSTEP_CUDA_CHECK(cudaMemset(wrong_, 0, sizeof(unsigned long long)));
    SPLITSTEP_CUDA_CHECK(kernels::countSumMismatches(data_, kCount, world, wrong_, nullptr));
    unsigned long long host = 0;
    SPLITSTEP_CUDA_CHECK(cudaMemcpy(&host, wrong_, sizeof(host), cudaMemcpyDeviceToHost));
    return host;
  }

  // Larger than the capped grid (4096 x 256), so the grid-stride loops are exercised.
  static constexpr std::size_t kCount = 3'000'001;
  float* data_ = nullptr;
  unsigned long long* wrong_ = nullptr;
};

TEST_F(PatternKernel, FillWritesThePatternEverywhere) {
  SPLITSTEP_CUDA_CHECK(cudaMemset(data_, 0xff, kCount * sizeof(float)));  // NaN poison
  SPLITSTEP_CUDA_CHECK(kernels::fillPattern(data_, kCount, 3, nullptr));
  std::vector<float> host(kCount);
  SPLITSTEP_CUDA_CHECK(
      cudaMemcpy(host.data(), data_, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(host[i], kernels::patternValue(i, 3)) << "index " << i;
  }
}

TEST_F(PatternKernel, CountsExactlyThePlantedMismatches) {
  // With one rank the expected sum is rank 0's own pattern.
  SPLITSTEP_CUDA_CHECK(kernels::fillPattern(data_, kCount, 0, nullptr));
  EXPECT_EQ(countWrong(1), 0u);
  const float bad = 99.0f;
  for (std::size_t i : {std::size_t{0}, std::size_t{12345}, kCount - 1}) {
    SPLITSTEP_CUDA_CHECK(cudaMemcpy(data_ + i, &bad, sizeof(bad), cudaMemcpyHostToDevice));
  }
  EXPECT_EQ(countWrong(1), 3u);
  // Against a two-rank sum almost every element is wrong.
  EXPECT_GT(countWrong(2), kCount / 2);
}

}  // namespace
}  // namespace splitstep
