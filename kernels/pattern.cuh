// Rank-dependent data for collective checks, usable from host and device code.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define SPLITSTEP_HOST_DEVICE __host__ __device__
#else
#define SPLITSTEP_HOST_DEVICE
#endif

namespace splitstep::kernels {

// Small integers (0..15) keep every partial sum of a float reduction exact for up to 2^20 ranks,
// whatever order the reduction adds them in, so a check can demand equality.
SPLITSTEP_HOST_DEVICE inline float patternValue(std::uint64_t index, int rank) {
  return static_cast<float>((index * 7u + static_cast<std::uint64_t>(rank) * 3u) % 16u);
}

// The sum of patternValue(index, r) over r = 0..world_size-1. Three is coprime to sixteen, so
// every sixteen consecutive ranks contribute 0 + 1 + ... + 15 = 120.
SPLITSTEP_HOST_DEVICE inline float patternSum(std::uint64_t index, int world_size) {
  float sum = static_cast<float>(world_size / 16) * 120.0f;
  for (int r = 0; r < world_size % 16; ++r) sum += patternValue(index, r);
  return sum;
}

// Writes patternValue(i, rank) to data[i]. Returns the launch status (cudaGetLastError).
cudaError_t fillPattern(float* data, std::size_t count, int rank, cudaStream_t stream);

// Adds to *mismatches (device memory) the number of i with data[i] != patternSum(i, world_size).
cudaError_t countSumMismatches(const float* data, std::size_t count, int world_size,
                               unsigned long long* mismatches, cudaStream_t stream);

}  // namespace splitstep::kernels
