#include "comm/NcclCommunicator.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace splitstep {
namespace {

ncclDataType_t toNccl(DataType type) {
  switch (type) {
    case DataType::Float32:
      return ncclFloat32;
  }
  throw std::invalid_argument("unsupported data type");
}

}  // namespace

NcclCommunicator::NcclCommunicator(MPI_Comm mpi, cudaStream_t stream) : stream_(stream) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(mpi, &rank);
  MPI_Comm_size(mpi, &size);
  ncclUniqueId id{};
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi);
  check(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ != nullptr) ncclCommDestroy(comm_);
}

void NcclCommunicator::allreduceSum(const void* send, void* recv, std::size_t count,
                                    DataType type) {
  check(ncclAllReduce(send, recv, count, toNccl(type), ncclSum, comm_, stream_), "ncclAllReduce");
}

void NcclCommunicator::check(ncclResult_t result, const char* call) const {
  if (result == ncclSuccess) return;
  const char* detail = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
  throw std::runtime_error(fmt::format("{} failed: {} ({})", call, ncclGetErrorString(result),
                                       detail != nullptr ? detail : ""));
}

}  // namespace splitstep
