#include "hold.cuh"

namespace splitstep::kernels {
namespace {

__device__ unsigned long long globalTimerNs() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void holdStreamKernel(const volatile int* release, volatile int* timed_out,
                                 unsigned long long timeout_ns) {
  const unsigned long long start = globalTimerNs();
  while (*release == 0) {
    if (globalTimerNs() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

cudaError_t holdStream(const volatile int* release, volatile int* timed_out,
                       unsigned long long timeout_ns, cudaStream_t stream) {
  holdStreamKernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace splitstep::kernels
