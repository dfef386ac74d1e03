// Collective communication behind one interface: NCCL on GPU buffers, MPI on host buffers.
#pragma once

#include <cstddef>
#include <string>

namespace splitstep {

enum class DataType { Float32 };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::string backend() const = 0;  // "nccl", "mpi"
  // Element-wise sum over all ranks of `count` elements; `send` and `recv` may be equal.
  // Queued on the device's working stream (NCCL) or complete on return (MPI).
  virtual void allreduceSum(const void* send, void* recv, std::size_t count, DataType type) = 0;
};

}  // namespace splitstep
