// MPI collectives on host buffers.
#pragma once

#include <mpi.h>

#include "comm/Communicator.hpp"

namespace splitstep {

class MpiCommunicator final : public Communicator {
 public:
  // Duplicates `mpi`, so splitstep's collectives never match a user's messages.
  explicit MpiCommunicator(MPI_Comm mpi);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  std::string backend() const override { return "mpi"; }
  void allreduceSum(const void* send, void* recv, std::size_t count, DataType type) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace splitstep
