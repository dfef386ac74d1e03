// NCCL over all ranks of an MPI communicator.
//
// The communicator is created non-blocking, so that initialisation polls ncclCommGetAsyncError
// under the watchdog. The collectives run on a blocking child split from it: a non-blocking
// communicator launches each call from a new host thread, which cost about 3.9 ms per call on
// an H200 node (NCCL 2.28) and would swamp every timing. Waits for the GPU still poll the
// child's asynchronous error under the watchdog, which aborts both on expiry. Groups of ranks
// (split()) are split from the same non-blocking parent, each a blocking communicator of its own.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "comm/Communicator.hpp"
#include "comm/NcclCallReader.hpp"
#include "common/Watchdog.hpp"

namespace splitstep {

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `mpi`: rank 0 creates the unique id and broadcasts it over MPI.
  // The calling thread's current CUDA device must be this rank's device.
  NcclCommunicator(MPI_Comm mpi, Watchdog& watchdog);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  std::string backend() const override { return "nccl"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Collective over every rank of the parent (ncclCommSplit): needs the communicator made from
  // an MPI communicator, not one split from it.
  std::unique_ptr<Communicator> split(std::optional<int> color) override;
  bool usesDeviceBuffers() const override { return true; }
  bool supports(const CollectiveDescriptor&, DataType, bool, std::string&) const override {
    return true;
  }
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override;
  // Read from `calls`, the profiler plugin NCCL loaded, here and in the communicators split
  // from this one.
  void readChoicesFrom(std::shared_ptr<const NcclCallReader> calls) { calls_ = std::move(calls); }
  std::uint64_t callMark() const override { return calls_ ? calls_->recorded() : 0; }
  std::vector<ChoiceCount> choicesSince(std::uint64_t mark) const override {
    return calls_ ? countChoices(calls_->since(mark)) : std::vector<ChoiceCount>{};
  }

 private:
  // A communicator split from another's parent: `comm` is ready, this one owns it.
  NcclCommunicator(ncclComm_t comm, Watchdog& watchdog);
  // Polls `parent_` and `comm_` for asynchronous errors in every wait, aborts both on expiry.
  void watchHealth();
  void check(ncclResult_t result, const char* call);
  // Waits while `comm` reports ncclInProgress (a communicator being created).
  void waitReady(ncclComm_t& comm, const char* call);
  void abort();

  ncclComm_t parent_ = nullptr;  // non-blocking; null in a communicator made by split()
  ncclComm_t comm_ = nullptr;    // blocking, split from parent_ (or from another's)
  Watchdog& watchdog_;
  int rank_ = 0;
  int size_ = 1;
  std::optional<Watchdog::Registration> registration_;
  std::shared_ptr<const NcclCallReader> calls_;
};

}  // namespace splitstep
