// Streaming kernels for the memory-bandwidth ceiling (STREAM's copy and triad), in 16-byte
// vectors so that every load and store is as wide as the hardware allows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace splitstep::kernels {

// dst[i] = src[i] for `vectors` float4 elements. Returns the launch status.
cudaError_t streamCopy(float4* dst, const float4* src, std::size_t vectors, unsigned blocks,
                       cudaStream_t stream);

// a[i] = b[i] + scalar * c[i] for `vectors` float4 elements. Returns the launch status.
cudaError_t streamTriad(float4* a, const float4* b, const float4* c, float scalar,
                        std::size_t vectors, unsigned blocks, cudaStream_t stream);

}  // namespace splitstep::kernels
