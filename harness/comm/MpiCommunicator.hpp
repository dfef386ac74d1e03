// MPI collectives, non-blocking underneath so that every wait runs under the watchdog.
#pragma once

#include <mpi.h>

#include <limits>

#include "comm/Communicator.hpp"
#include "common/Watchdog.hpp"

namespace splitstep {

// Whether this MPI can take CUDA device buffers (Open MPI's MPIX_Query_cuda_support).
bool mpiIsCudaAware();

class MpiCommunicator final : public Communicator {
 public:
  // Duplicates `mpi`, so splitstep's collectives never match a user's messages.
  // `device_buffers`: the buffers will live on the GPU (only with a CUDA-aware MPI).
  MpiCommunicator(MPI_Comm mpi, Watchdog& watchdog, bool device_buffers = false);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  std::string backend() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::unique_ptr<Communicator> split(std::optional<int> color) override;
  bool usesDeviceBuffers() const override { return device_buffers_; }
  bool supports(const CollectiveDescriptor& collective, DataType type, bool in_place,
                std::string& why_not) const override;
  std::size_t maxCount() const override { return std::numeric_limits<int>::max(); }
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  Watchdog& watchdog_;
  bool device_buffers_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace splitstep
