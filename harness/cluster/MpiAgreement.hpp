// RankAgreement over an MPI communicator: non-blocking MPI calls, waited for under the watchdog.
#pragma once

#include <mpi.h>

#include "common/Watchdog.hpp"
#include "measure/RankAgreement.hpp"

namespace splitstep {

class MpiAgreement final : public RankAgreement {
 public:
  // Duplicates `mpi`, so that agreement messages never match anything else in flight.
  MpiAgreement(MPI_Comm mpi, Watchdog& watchdog);
  ~MpiAgreement() override;
  MpiAgreement(const MpiAgreement&) = delete;
  MpiAgreement& operator=(const MpiAgreement&) = delete;

  std::int64_t maxOverRanks(std::int64_t value) override;
  double barrier() override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  Watchdog& watchdog_;
};

}  // namespace splitstep
