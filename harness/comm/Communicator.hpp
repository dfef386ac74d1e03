// Collective communication behind one interface: NCCL on GPU buffers, MPI on host buffers (or
// device buffers when the MPI is CUDA-aware).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/AlgorithmChoice.hpp"
#include "comm/Collective.hpp"

namespace splitstep {

enum class DataType { Float32, BFloat16, Float16 };

inline std::size_t elementBytes(DataType type) { return type == DataType::Float32 ? 4 : 2; }

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::string backend() const = 0;  // "nccl", "mpi"
  // This rank's number among the communicator's ranks, and how many ranks it holds.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Collective over every rank of this communicator: a communicator of the ranks that pass the
  // same `color`, numbered in the order of their ranks here; nullptr on a rank that passes none.
  // A rank that never arrives ends the wait with a TimeoutError.
  virtual std::unique_ptr<Communicator> split(std::optional<int> color) = 0;
  // Whether buffers live on the GPU (NCCL, CUDA-aware MPI) or on the host.
  virtual bool usesDeviceBuffers() const = 0;
  // Whether this backend can run `collective` on `type` (in place or not); if not, `why_not`
  // says why.
  virtual bool supports(const CollectiveDescriptor& collective, DataType type, bool in_place,
                        std::string& why_not) const = 0;
  // The largest `count` one call takes: MPI counts elements in an int.
  virtual std::size_t maxCount() const { return std::numeric_limits<std::size_t>::max(); }
  // One collective, with nccl-tests' buffer layout (CollectiveLayout): `count` is the NCCL
  // call's count argument; broadcasts come from rank 0; in place, `send` and `recv` point into
  // one allocation as CollectiveLayout's offsets say. Queued on `stream` (NCCL) or complete
  // on return (MPI, which ignores the stream). A wait on another rank that outlasts the
  // watchdog's timeout throws TimeoutError.
  virtual void run(const CollectiveDescriptor& collective, const void* send, void* recv,
                   std::size_t count, DataType type, cudaStream_t stream) = 0;
  // A mark of this process's calls so far, and what the library chose for its calls since a
  // mark (each choice with how many calls made it, the most frequent first). Empty where the
  // library does not say: MPI; NCCL without splitstep's profiler plugin, or on one rank, where
  // it copies without choosing an algorithm.
  virtual std::uint64_t callMark() const { return 0; }
  virtual std::vector<ChoiceCount> choicesSince(std::uint64_t) const { return {}; }
};

}  // namespace splitstep
