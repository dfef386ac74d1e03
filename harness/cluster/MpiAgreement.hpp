// RankAgreement over an MPI communicator (host-side MPI_Allreduce).
#pragma once

#include <mpi.h>

#include "measure/RankAgreement.hpp"

namespace splitstep {

class MpiAgreement final : public RankAgreement {
 public:
  // Duplicates `mpi`, so that agreement messages never match anything else in flight.
  explicit MpiAgreement(MPI_Comm mpi);
  ~MpiAgreement() override;
  MpiAgreement(const MpiAgreement&) = delete;
  MpiAgreement& operator=(const MpiAgreement&) = delete;

  std::int64_t maxOverRanks(std::int64_t value) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace splitstep
