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

// What a rank must find at element i of its output: for a reduction, the sum over ranks of the
// pattern at one source index; for a copy, one rank's pattern at one source index. Each
// collective's descriptor (harness/comm/collectives/) says which.
struct ExpectSpec {
  bool sum = true;  // a reduction's result, summed over `world` ranks
  int world = 1;
  int source_rank = 0;       // copies: the rank the element came from, unless in blocks
  std::uint64_t block = 0;   // copies in blocks: element i came from rank i / block, at i % block
  std::uint64_t offset = 0;  // added to the source index
};

// 7 x (i + i/16 + i/256 + ...) mod 16. Moving the index by 2^m changes the term i/16^(m/4) by
// 1, 2, 4 or 8 and the terms below it by multiples of 16, so nearly every element of a block
// copied from the wrong offset differs (the terms above change only where a carry reaches them).
// 7i alone repeats every 16 elements: a block of 16k elements from the wrong place would pass.
SPLITSTEP_HOST_DEVICE inline std::uint64_t patternIndexHash(std::uint64_t index) {
  std::uint64_t sum = 0;
  for (; index != 0; index >>= 4) sum += index;
  return sum * 7u;
}

// Small integers (0..15) keep every partial sum exact in fp32 for up to 2^20 ranks, in bf16 for
// up to 17 ranks and in fp16 for up to 136, whatever order the reduction adds them in.
SPLITSTEP_HOST_DEVICE inline float patternValue(std::uint64_t index, int rank) {
  return static_cast<float>((patternIndexHash(index) + static_cast<std::uint64_t>(rank) * 3u) %
                            16u);
}

// The sum of patternValue(index, r) over r = 0..world_size-1. Three is coprime to sixteen, so
// every sixteen consecutive ranks contribute 0 + 1 + ... + 15 = 120.
SPLITSTEP_HOST_DEVICE inline float patternSum(std::uint64_t index, int world_size) {
  float sum = static_cast<float>(world_size / 16) * 120.0f;
  for (int r = 0; r < world_size % 16; ++r) sum += patternValue(index, r);
  return sum;
}

SPLITSTEP_HOST_DEVICE inline float expectedValue(const ExpectSpec& spec, std::uint64_t i) {
  if (spec.sum) return patternSum(spec.offset + i, spec.world);
  if (spec.block != 0) {
    return patternValue(spec.offset + i % spec.block, static_cast<int>(i / spec.block));
  }
  return patternValue(spec.offset + i, spec.source_rank);
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
