#include "membw.cuh"

namespace splitstep::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void copyKernel(float4* __restrict__ dst, const float4* __restrict__ src,
                           std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += stride) {
    dst[i] = src[i];
  }
}

__global__ void triadKernel(float4* __restrict__ a, const float4* __restrict__ b,
                            const float4* __restrict__ c, float scalar, std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += stride) {
    const float4 x = b[i];
    const float4 y = c[i];
    a[i] =
        make_float4(x.x + scalar * y.x, x.y + scalar * y.y, x.z + scalar * y.z, x.w + scalar * y.w);
  }
}

}  // namespace

cudaError_t streamCopy(float4* dst, const float4* src, std::size_t vectors, unsigned blocks,
                       cudaStream_t stream) {
  copyKernel<<<blocks, kThreads, 0, stream>>>(dst, src, vectors);
  return cudaGetLastError();
}

cudaError_t streamTriad(float4* a, const float4* b, const float4* c, float scalar,
                        std::size_t vectors, unsigned blocks, cudaStream_t stream) {
  triadKernel<<<blocks, kThreads, 0, stream>>>(a, b, c, scalar, vectors);
  return cudaGetLastError();
}

}  // namespace splitstep::kernels
