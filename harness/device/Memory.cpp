#include "device/Memory.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <new>

#include "device/CudaCheck.hpp"

namespace splitstep {

void MemoryRelease::operator()(void* data) const {
  switch (kind) {
    case MemoryKind::Device:
      cudaFree(data);
      break;
    case MemoryKind::Pinned:
      cudaFreeHost(data);
      break;
    case MemoryKind::Host:
      std::free(data);
      break;
  }
}

Memory allocate(MemoryKind kind, std::size_t bytes) {
  void* data = nullptr;
  switch (kind) {
    case MemoryKind::Device:
      SPLITSTEP_CUDA_CHECK(cudaMalloc(&data, bytes));
      break;
    case MemoryKind::Pinned:
      SPLITSTEP_CUDA_CHECK(cudaHostAlloc(&data, bytes, cudaHostAllocDefault));
      break;
    case MemoryKind::Host:
      data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
      if (data == nullptr) throw std::bad_alloc();
      break;
  }
  return Memory(data, MemoryRelease{kind});
}

}  // namespace splitstep
