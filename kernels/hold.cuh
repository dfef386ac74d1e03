// A kernel that holds a stream until the host releases it (nvbench's "blocking kernel").
#pragma once

#include <cuda_runtime_api.h>

namespace splitstep::kernels {

// Spins until *release != 0, or until `timeout_ns` of GPU time have passed, in which case it
// sets *timed_out = 1 and returns. Both pointers are device views of mapped host memory.
// Returns the launch status (cudaGetLastError).
cudaError_t holdStream(const volatile int* release, volatile int* timed_out,
                       unsigned long long timeout_ns, cudaStream_t stream);

}  // namespace splitstep::kernels
