#include "comm/MpiCommunicator.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace splitstep {
namespace {

MPI_Datatype toMpi(DataType type) {
  switch (type) {
    case DataType::Float32:
      return MPI_FLOAT;
  }
  throw std::invalid_argument("unsupported data type");
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm mpi) { MPI_Comm_dup(mpi, &comm_); }

MpiCommunicator::~MpiCommunicator() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::allreduceSum(const void* send, void* recv, std::size_t count, DataType type) {
  if (count > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("MPI allreduce of more than 2^31-1 elements");
  }
  const int status = MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv,
                                   static_cast<int>(count), toMpi(type), MPI_SUM, comm_);
  if (status != MPI_SUCCESS) throw std::runtime_error("MPI_Allreduce failed");
}

}  // namespace splitstep
