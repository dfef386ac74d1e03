#include "comm/MpiCommunicator.hpp"

#include "cluster/MpiWait.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace splitstep {
namespace {

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

std::unique_ptr<Communicator> MpiCommunicator::split(std::optional<int> color) {
  // MPI_Comm_split has no non-blocking form: the ranks first meet at a barrier that is waited
  // for under the watchdog, so that the split starts only once every rank has arrived.
  MPI_Request arrived = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm_, &arrived);
  waitForRequest(watchdog_, arrived, "the other ranks before MPI_Comm_split");
  MPI_Comm part = MPI_COMM_NULL;
  if (MPI_Comm_split(comm_, color.value_or(MPI_UNDEFINED), rank_, &part) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Comm_split failed");
  }
  if (part == MPI_COMM_NULL) return nullptr;
  auto split = std::make_unique<MpiCommunicator>(part, watchdog_, device_buffers_);
  MPI_Comm_free(&part);  // the new communicator holds a duplicate
  return split;
}

bool MpiCommunicator::supports(const CollectiveDescriptor& collective, DataType type, bool in_place,
                               std::string& why_not) const {
  if (collective.reduction != Reduction::None && type != DataType::Float32) {
    why_not = "MPI has no sum for bf16 or fp16";
    return false;
  }
  if (in_place && !collective.mpi_in_place_refusal.empty()) {
    why_not = collective.mpi_in_place_refusal;
    return false;
  }
  return true;
}

void MpiCommunicator::run(const CollectiveDescriptor& collective, const void* send, void* recv,
                          std::size_t count, DataType type, cudaStream_t) {
  if (count > maxCount()) {
    throw std::invalid_argument("MPI collective of more than 2^31-1 elements");
  }
  std::vector<MPI_Request> requests;
  struct Pending {
    Watchdog& watchdog;
    std::string waiting_for;  // formatted once per call, not once per request
    std::vector<MPI_Request>& requests;
    void operator()() const {
      for (MPI_Request& request : requests) waitForRequest(watchdog, request, waiting_for);
      requests.clear();
    }
  };
  const Pending wait{watchdog_, fmt::format("the other ranks in MPI {}", collective.name),
                     requests};
  const MpiCall call{send, recv, static_cast<int>(count), toMpi(type), elementBytes(type), comm_,
                     rank_, size_, device_buffers_, &requests,
                     // A reference: std::function holds it without allocating, in the timed call.
                     std::cref(wait)};
  if (collective.mpi(call) != MPI_SUCCESS) {
    throw std::runtime_error(fmt::format("MPI {} failed", collective.name));
  }
  wait();
}

}  // namespace splitstep
