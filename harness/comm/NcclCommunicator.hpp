// NCCL over all ranks of an MPI communicator, queued on one CUDA stream.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include "comm/Communicator.hpp"

namespace splitstep {

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `mpi`: rank 0 creates the unique id and broadcasts it over MPI.
  // The calling thread's current CUDA device must be this rank's device.
  NcclCommunicator(MPI_Comm mpi, cudaStream_t stream);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  std::string backend() const override { return "nccl"; }
  void allreduceSum(const void* send, void* recv, std::size_t count, DataType type) override;

 private:
  void check(ncclResult_t result, const char* call) const;

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace splitstep
