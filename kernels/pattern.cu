#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "pattern.cuh"

namespace splitstep::kernels {
namespace {

constexpr int kThreads = 256;
// Grid-stride loops with a capped grid: enough blocks to fill any current GPU, and no grid-size
// overflow for multi-GiB buffers.
constexpr std::size_t kMaxBlocks = 4096;

unsigned blocksFor(std::size_t count) {
  const std::size_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < kMaxBlocks ? (wanted > 0 ? wanted : 1) : kMaxBlocks);
}

template <typename T>
__host__ __device__ T fromFloat(float v);
template <>
__host__ __device__ float fromFloat<float>(float v) {
  return v;
}
template <>
__host__ __device__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__host__ __device__ __half fromFloat<__half>(float v) {
  return __float2half(v);
}

__host__ __device__ inline float toFloat(float v) { return v; }
__host__ __device__ inline float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
__host__ __device__ inline float toFloat(__half v) { return __half2float(v); }

__host__ __device__ inline bool differs(float value, float expected, float tolerance) {
  const float bound = tolerance * fmaxf(1.0f, fabsf(expected));
  return !(fabsf(value - expected) <= bound);  // NaN compares false: wrong
}

template <typename T>
__global__ void fillKernel(T* data, std::size_t count, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    data[i] = fromFloat<T>(patternValue(i, rank));
  }
}

template <typename T>
__global__ void mismatchKernel(const T* data, std::size_t count, ExpectSpec spec, float tolerance,
                               unsigned long long* wrong) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    local += differs(toFloat(data[i]), expectedValue(spec, i), tolerance) ? 1ull : 0ull;
  }
  if (local != 0) atomicAdd(wrong, local);
}

template <typename T>
void fillOnHost(T* data, std::size_t count, int rank) {
  for (std::size_t i = 0; i < count; ++i) data[i] = fromFloat<T>(patternValue(i, rank));
}

template <typename T>
unsigned long long mismatchesOnHost(const T* data, std::size_t count, ExpectSpec spec,
                                    float tolerance) {
  unsigned long long wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    wrong += differs(toFloat(data[i]), expectedValue(spec, i), tolerance) ? 1 : 0;
  }
  return wrong;
}

}  // namespace

cudaError_t fillPattern(void* data, std::size_t count, PatternType type, int rank,
                        cudaStream_t stream) {
  switch (type) {
    case PatternType::Float32:
      fillKernel<<<blocksFor(count), kThreads, 0, stream>>>(static_cast<float*>(data), count, rank);
      break;
    case PatternType::BFloat16:
      fillKernel<<<blocksFor(count), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data),
                                                            count, rank);
      break;
    case PatternType::Float16:
      fillKernel<<<blocksFor(count), kThreads, 0, stream>>>(static_cast<__half*>(data), count,
                                                            rank);
      break;
  }
  return cudaGetLastError();
}

cudaError_t fillPatternOnHost(void* data, std::size_t count, PatternType type, int rank) {
  switch (type) {
    case PatternType::Float32:
      fillOnHost(static_cast<float*>(data), count, rank);
      break;
    case PatternType::BFloat16:
      fillOnHost(static_cast<__nv_bfloat16*>(data), count, rank);
      break;
    case PatternType::Float16:
      fillOnHost(static_cast<__half*>(data), count, rank);
      break;
  }
  return cudaSuccess;
}

cudaError_t countMismatches(const void* data, std::size_t count, PatternType type, ExpectSpec spec,
                            float relative_tolerance, unsigned long long* wrong,
                            cudaStream_t stream) {
  switch (type) {
    case PatternType::Float32:
      mismatchKernel<<<blocksFor(count), kThreads, 0, stream>>>(
          static_cast<const float*>(data), count, spec, relative_tolerance, wrong);
      break;
    case PatternType::BFloat16:
      mismatchKernel<<<blocksFor(count), kThreads, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(data), count, spec, relative_tolerance, wrong);
      break;
    case PatternType::Float16:
      mismatchKernel<<<blocksFor(count), kThreads, 0, stream>>>(
          static_cast<const __half*>(data), count, spec, relative_tolerance, wrong);
      break;
  }
  return cudaGetLastError();
}

unsigned long long countMismatchesOnHost(const void* data, std::size_t count, PatternType type,
                                         ExpectSpec spec, float relative_tolerance) {
  switch (type) {
    case PatternType::Float32:
      return mismatchesOnHost(static_cast<const float*>(data), count, spec, relative_tolerance);
    case PatternType::BFloat16:
      return mismatchesOnHost(static_cast<const __nv_bfloat16*>(data), count, spec,
                              relative_tolerance);
    case PatternType::Float16:
      return mismatchesOnHost(static_cast<const __half*>(data), count, spec, relative_tolerance);
  }
  return count;
}

}  // namespace splitstep::kernels
