#include "comm/NcclCommunicator.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace splitstep {
namespace {

ncclDataType_t toNccl(DataType type) {
  switch (type) {
    case DataType::Float32:
      return ncclFloat32;
    case DataType::BFloat16:
      return ncclBfloat16;
    case DataType::Float16:
      return ncclFloat16;
  }
  throw std::invalid_argument("unsupported data type");
}

}  // namespace

NcclCommunicator::NcclCommunicator(MPI_Comm mpi, cudaStream_t stream, Watchdog& watchdog)
    : stream_(stream), watchdog_(watchdog) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(mpi, &rank);
  MPI_Comm_size(mpi, &size);
  ncclUniqueId id{};
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  check(ncclCommInitRankConfig(&comm_, size, id, rank, &config), "ncclCommInitRankConfig");
  registration_.emplace(watchdog_.watch(
      [this] {
        ncclResult_t state = ncclSuccess;
        if (comm_ != nullptr && ncclCommGetAsyncError(comm_, &state) == ncclSuccess &&
            state != ncclSuccess && state != ncclInProgress) {
          const std::string detail = ncclGetLastError(comm_);
          abort();
          throw std::runtime_error(
              fmt::format("NCCL asynchronous error: {} ({})", ncclGetErrorString(state), detail));
        }
      },
      [this] { abort(); }));
  waitReady("ncclCommInitRankConfig");
}

NcclCommunicator::~NcclCommunicator() {
  registration_.reset();
  if (comm_ == nullptr) return;
  // A non-blocking communicator finalizes asynchronously; destroy it only once that is done.
  ncclCommFinalize(comm_);
  ncclResult_t state = ncclInProgress;
  while (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclInProgress) {
  }
  ncclCommDestroy(comm_);
}

void NcclCommunicator::abort() {
  if (comm_ == nullptr) return;
  ncclCommAbort(comm_);
  comm_ = nullptr;
}

void NcclCommunicator::run(Collective collective, const void* send, void* recv, std::size_t count,
                           DataType type) {
  if (comm_ == nullptr) throw std::runtime_error("the NCCL communicator was aborted");
  const ncclDataType_t t = toNccl(type);
  switch (collective) {
    case Collective::AllReduce:
      check(ncclAllReduce(send, recv, count, t, ncclSum, comm_, stream_), "ncclAllReduce");
      break;
    case Collective::ReduceScatter:
      check(ncclReduceScatter(send, recv, count, t, ncclSum, comm_, stream_), "ncclReduceScatter");
      break;
    case Collective::AllGather:
      check(ncclAllGather(send, recv, count, t, comm_, stream_), "ncclAllGather");
      break;
    case Collective::Broadcast:
      check(ncclBroadcast(send, recv, count, t, 0, comm_, stream_), "ncclBroadcast");
      break;
  }
}

void NcclCommunicator::waitReady(const char* call) {
  watchdog_.waitUntil(
      [this, call] {
        ncclResult_t state = ncclSuccess;
        if (comm_ == nullptr) return true;
        ncclCommGetAsyncError(comm_, &state);
        if (state == ncclInProgress) return false;
        check(state, call);
        return true;
      },
      std::string("NCCL (") + call + ")");
}

void NcclCommunicator::check(ncclResult_t result, const char* call) {
  if (result == ncclInProgress) {
    waitReady(call);
    return;
  }
  if (result == ncclSuccess) return;
  const char* detail = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
  throw std::runtime_error(fmt::format("{} failed: {} ({})", call, ncclGetErrorString(result),
                                       detail != nullptr ? detail : ""));
}

}  // namespace splitstep
