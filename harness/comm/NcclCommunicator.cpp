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

NcclCommunicator::NcclCommunicator(MPI_Comm mpi, Watchdog& watchdog) : watchdog_(watchdog) {
  MPI_Comm_rank(mpi, &rank_);
  MPI_Comm_size(mpi, &size_);
  const int rank = rank_;
  const int size = size_;
  ncclUniqueId id{};
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi);
  watchHealth();
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  check(ncclCommInitRankConfig(&parent_, size, id, rank, &config), "ncclCommInitRankConfig");
  waitReady(parent_, "ncclCommInitRankConfig");
  ncclConfig_t child = NCCL_CONFIG_INITIALIZER;
  child.blocking = 1;
  check(ncclCommSplit(parent_, 0, rank, &comm_, &child), "ncclCommSplit");
  waitReady(comm_, "ncclCommSplit");
}

NcclCommunicator::NcclCommunicator(ncclComm_t comm, Watchdog& watchdog)
    : comm_(comm), watchdog_(watchdog) {
  check(ncclCommUserRank(comm_, &rank_), "ncclCommUserRank");
  check(ncclCommCount(comm_, &size_), "ncclCommCount");
  watchHealth();
}

void NcclCommunicator::watchHealth() {
  registration_.emplace(watchdog_.watch(
      [this] {
        for (ncclComm_t comm : {parent_, comm_}) {
          ncclResult_t state = ncclSuccess;
          if (comm != nullptr && ncclCommGetAsyncError(comm, &state) == ncclSuccess &&
              state != ncclSuccess && state != ncclInProgress) {
            const std::string detail = ncclGetLastError(comm);
            abort();
            throw std::runtime_error(
                fmt::format("NCCL asynchronous error: {} ({})", ncclGetErrorString(state), detail));
          }
        }
      },
      [this] { abort(); }));
}

std::unique_ptr<Communicator> NcclCommunicator::split(std::optional<int> color) {
  if (parent_ == nullptr) throw std::logic_error("a split NCCL communicator does not split again");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;  // as the world's child: a blocking launch per call
  ncclComm_t part = nullptr;
  check(ncclCommSplit(parent_, color.value_or(NCCL_SPLIT_NOCOLOR), rank_, &part, &config),
        "ncclCommSplit");
  // The split runs in the background of the non-blocking parent, which reports ncclInProgress
  // until it is done on this rank; only then is `part` set (or left null without a color).
  waitReady(parent_, "ncclCommSplit");
  if (!color) return nullptr;
  waitReady(part, "ncclCommSplit");
  std::unique_ptr<NcclCommunicator> group(new NcclCommunicator(part, watchdog_));
  group->readChoicesFrom(calls_);
  return group;
}

NcclCommunicator::~NcclCommunicator() {
  registration_.reset();
  if (comm_ != nullptr) ncclCommDestroy(comm_);
  if (parent_ == nullptr) return;
  // A non-blocking communicator finalizes asynchronously; destroy it only once that is done.
  ncclCommFinalize(parent_);
  ncclResult_t state = ncclInProgress;
  while (ncclCommGetAsyncError(parent_, &state) == ncclSuccess && state == ncclInProgress) {
  }
  ncclCommDestroy(parent_);
}

void NcclCommunicator::abort() {
  for (ncclComm_t* comm : {&comm_, &parent_}) {
    if (*comm != nullptr) ncclCommAbort(*comm);
    *comm = nullptr;
  }
}

void NcclCommunicator::run(const CollectiveDescriptor& collective, const void* send, void* recv,
                           std::size_t count, DataType type, cudaStream_t stream) {
  if (comm_ == nullptr) throw std::runtime_error("the NCCL communicator was aborted");
  const NcclCall call{send,  recv,   count, toNccl(type), elementBytes(type),
                      comm_, stream, rank_, size_};
  const std::string name = fmt::format("NCCL {}", collective.name);
  check(collective.nccl(call), name.c_str());
}

void NcclCommunicator::waitReady(ncclComm_t& comm, const char* call) {
  watchdog_.waitUntil(
      [this, &comm, call] {
        ncclResult_t state = ncclSuccess;
        // Split from a non-blocking parent, the child's handle appears once its creation has
        // progressed; the parent's health check reports a split that failed.
        if (comm == nullptr) return false;
        ncclCommGetAsyncError(comm, &state);
        if (state == ncclInProgress) return false;
        check(state, call);
        return true;
      },
      std::string("NCCL (") + call + ")");
}

void NcclCommunicator::check(ncclResult_t result, const char* call) {
  if (result == ncclInProgress) return;  // a communicator being created: waitReady() follows
  if (result == ncclSuccess) return;
  const char* detail = ncclGetLastError(comm_ != nullptr ? comm_ : parent_);
  throw std::runtime_error(fmt::format("{} failed: {} ({})", call, ncclGetErrorString(result),
                                       detail != nullptr ? detail : ""));
}

}  // namespace splitstep
