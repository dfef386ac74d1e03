// For MPI tests: this rank's place in MPI_COMM_WORLD.
#pragma once

#include <mpi.h>

namespace splitstep::testing {

struct MpiWorld {
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  int rank = 0;
  int size = 1;
};

}  // namespace splitstep::testing
