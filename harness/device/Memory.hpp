// Owned buffers on the GPU, in pinned host memory or in plain host memory, each freed by the
// call that matches its allocation.
#pragma once

#include <cstddef>
#include <memory>

namespace splitstep {

enum class MemoryKind { Device, Pinned, Host };

struct MemoryRelease {
  MemoryKind kind = MemoryKind::Host;
  void operator()(void* data) const;
};

using Memory = std::unique_ptr<void, MemoryRelease>;

// Throws (naming the CUDA call, or std::bad_alloc) when the memory cannot be had. Host memory is
// 64-byte aligned.
Memory allocate(MemoryKind kind, std::size_t bytes);

}  // namespace splitstep
