#include "comm/MpiCommunicator.hpp"

#include "comm/CollectiveLayout.hpp"
#include "comm/MpiWait.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <limits>
#include <stdexcept>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace splitstep {
namespace {

bool isReduction(Collective collective) {
  return collective == Collective::AllReduce || collective == Collective::ReduceScatter;
}

// bf16 and fp16 move as 16-bit words where nothing is added up; MPI has no sum for them.
MPI_Datatype toMpi(DataType type) { return type == DataType::Float32 ? MPI_FLOAT : MPI_UINT16_T; }

}  // namespace

bool mpiIsCudaAware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

MpiCommunicator::MpiCommunicator(MPI_Comm mpi, Watchdog& watchdog, bool device_buffers)
    : watchdog_(watchdog), device_buffers_(device_buffers) {
  MPI_Comm_dup(mpi, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

bool MpiCommunicator::supports(Collective collective, DataType type, bool in_place,
                               std::string& why_not) const {
  if (isReduction(collective) && type != DataType::Float32) {
    why_not = "MPI has no sum for bf16 or fp16";
    return false;
  }
  if (in_place && collective == Collective::ReduceScatter) {
    // MPI leaves an in-place reduce-scatter's block at the front of the buffer, NCCL at the
    // rank's own offset: the two would not be the same operation.
    why_not = "MPI's in-place reduce-scatter has another buffer layout than NCCL's";
    return false;
  }
  return true;
}

void MpiCommunicator::run(Collective collective, const void* send, void* recv, std::size_t count,
                          DataType type, cudaStream_t) {
  if (count > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("MPI collective of more than 2^31-1 elements");
  }
  const int n = static_cast<int>(count);
  const MPI_Datatype t = toMpi(type);
  MPI_Request request = MPI_REQUEST_NULL;
  int status = MPI_SUCCESS;
  const std::size_t bytes = count * elementBytes(type);
  const bool in_place = send == recv;
  switch (collective) {
    case Collective::AllReduce:
      status = MPI_Iallreduce(in_place ? MPI_IN_PLACE : send, recv, n, t, MPI_SUM, comm_, &request);
      break;
    case Collective::ReduceScatter:  // out of place only: supports() refuses in place
      status = MPI_Ireduce_scatter_block(send, recv, n, t, MPI_SUM, comm_, &request);
      break;
    case Collective::AllGather: {
      // In place, this rank's block already sits at its offset of the receive buffer.
      const bool block_in_place =
          send == static_cast<const char*>(recv) + static_cast<std::size_t>(rank_) * bytes;
      status =
          MPI_Iallgather(block_in_place ? MPI_IN_PLACE : send, n, t, recv, n, t, comm_, &request);
      break;
    }
    case Collective::Broadcast:
      if (rank_ == 0 && !in_place) {
        // MPI broadcasts in one buffer; the root's output is its input.
        if (device_buffers_) {
          cudaMemcpy(recv, send, bytes, cudaMemcpyDeviceToDevice);
        } else {
          std::memcpy(recv, send, bytes);
        }
      }
      status = MPI_Ibcast(recv, n, t, 0, comm_, &request);
      break;
  }
  if (status != MPI_SUCCESS) {
    throw std::runtime_error(fmt::format("MPI {} failed", toString(collective)));
  }
  waitForRequest(watchdog_, request,
                 fmt::format("the other ranks in MPI {}", toString(collective)));
}

}  // namespace splitstep
