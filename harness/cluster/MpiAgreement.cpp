#include "cluster/MpiAgreement.hpp"

#include <stdexcept>

namespace splitstep {

MpiAgreement::MpiAgreement(MPI_Comm mpi) { MPI_Comm_dup(mpi, &comm_); }

MpiAgreement::~MpiAgreement() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::int64_t MpiAgreement::maxOverRanks(std::int64_t value) {
  std::int64_t result = 0;
  if (MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_MAX, comm_) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Allreduce (rank agreement) failed");
  }
  return result;
}

}  // namespace splitstep
