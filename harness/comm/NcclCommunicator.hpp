// NCCL over all ranks of an MPI communicator, queued on one CUDA stream. Created non-blocking,
// so every wait (initialisation, a collective's enqueue) polls ncclCommGetAsyncError under the
// watchdog, which aborts the communicator when a wait expires.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <optional>

#include "comm/Communicator.hpp"
#include "comm/Watchdog.hpp"

namespace splitstep {

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `mpi`: rank 0 creates the unique id and broadcasts it over MPI.
  // The calling thread's current CUDA device must be this rank's device.
  NcclCommunicator(MPI_Comm mpi, cudaStream_t stream, Watchdog& watchdog);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  std::string backend() const override { return "nccl"; }
  bool usesDeviceBuffers() const override { return true; }
  bool supports(Collective, DataType, bool, std::string&) const override { return true; }
  void run(Collective collective, const void* send, void* recv, std::size_t count,
           DataType type) override;

 private:
  void check(ncclResult_t result, const char* call);
  // Waits while the communicator reports ncclInProgress (non-blocking mode).
  void waitReady(const char* call);
  void abort();

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_;
  Watchdog& watchdog_;
  std::optional<Watchdog::Registration> registration_;
};

}  // namespace splitstep
