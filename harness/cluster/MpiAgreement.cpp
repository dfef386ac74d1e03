#include "cluster/MpiAgreement.hpp"

#include <chrono>
#include <stdexcept>

#include "cluster/MpiWait.hpp"

namespace splitstep {

MpiAgreement::MpiAgreement(MPI_Comm mpi, Watchdog& watchdog) : watchdog_(watchdog) {
  MPI_Comm_dup(mpi, &comm_);
}

MpiAgreement::~MpiAgreement() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::int64_t MpiAgreement::maxOverRanks(std::int64_t value) {
  std::int64_t result = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Iallreduce(&value, &result, 1, MPI_INT64_T, MPI_MAX, comm_, &request) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Iallreduce (rank agreement) failed");
  }
  waitForRequest(watchdog_, request, "the other ranks to agree on a measurement decision");
  return result;
}

double MpiAgreement::barrier() {
  const auto start = std::chrono::steady_clock::now();
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(comm_, &request) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Ibarrier failed");
  }
  waitForRequest(watchdog_, request, "the other ranks at the barrier before a sample");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace splitstep
