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

__global__ void fillPatternKernel(float* data, std::size_t count, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    data[i] = patternValue(i, rank);
  }
}

__global__ void countSumMismatchesKernel(const float* data, std::size_t count, int world_size,
                                         unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    local += data[i] != patternSum(i, world_size) ? 1ull : 0ull;
  }
  if (local != 0) atomicAdd(mismatches, local);
}

}  // namespace

cudaError_t fillPattern(float* data, std::size_t count, int rank, cudaStream_t stream) {
  fillPatternKernel<<<blocksFor(count), kThreads, 0, stream>>>(data, count, rank);
  return cudaGetLastError();
}

cudaError_t countSumMismatches(const float* data, std::size_t count, int world_size,
                               unsigned long long* mismatches, cudaStream_t stream) {
  countSumMismatchesKernel<<<blocksFor(count), kThreads, 0, stream>>>(data, count, world_size,
                                                                      mismatches);
  return cudaGetLastError();
}

}  // namespace splitstep::kernels
