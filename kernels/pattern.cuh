// Rank-dependent data for collective checks: what each rank sends, what each rank must receive.
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

enum class PatternType : int { Float32 = 0, BFloat16 = 1, Float16 = 2 };

// What a rank must find in its output.
enum class Expect : int {
  Sum = 0,       // allreduce: element i summed over ranks
  BlockSum = 1,  // reduce-scatter: this rank's block of the sum
  Gathered = 2,  // allgather: block q is rank q's input
  Root = 3,      // broadcast: the root's input
};

struct ExpectSpec {
  Expect kind = Expect::Sum;
  int rank = 0;
  int world = 1;
  std::uint64_t block = 0;  // elements per rank's block (BlockSum, Gathered)
  int root = 0;             // Root
};

// Small integers (0..15) keep every partial sum exact in fp32 for up to 2^20 ranks, in bf16 for
// up to 17 ranks and in fp16 for up to 136, whatever order the reduction adds them in.
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

SPLITSTEP_HOST_DEVICE inline float expectedValue(const ExpectSpec& spec, std::uint64_t i) {
  switch (spec.kind) {
    case Expect::Sum:
      return patternSum(i, spec.world);
    case Expect::BlockSum:
      return patternSum(static_cast<std::uint64_t>(spec.rank) * spec.block + i, spec.world);
    case Expect::Gathered:
      return patternValue(i % spec.block, static_cast<int>(i / spec.block));
    case Expect::Root:
      return patternValue(i, spec.root);
  }
  return 0;
}

// data[i] = patternValue(i, rank) in `type`, on the device (queued on `stream`) or on the host.
// Return the launch status (cudaGetLastError) / cudaSuccess.
cudaError_t fillPattern(void* data, std::size_t count, PatternType type, int rank,
                        cudaStream_t stream);
cudaError_t fillPatternOnHost(void* data, std::size_t count, PatternType type, int rank);

// Adds to *wrong (device memory) the number of i where data[i] differs from
// expectedValue(spec, i) by more than relative_tolerance * max(1, |expected|); NaN is wrong.
cudaError_t countMismatches(const void* data, std::size_t count, PatternType type, ExpectSpec spec,
                            float relative_tolerance, unsigned long long* wrong,
                            cudaStream_t stream);
// The same on the host; returns the count.
unsigned long long countMismatchesOnHost(const void* data, std::size_t count, PatternType type,
                                         ExpectSpec spec, float relative_tolerance);

}  // namespace splitstep::kernels
