// The device tests open MPI communicators, so MPI is initialised once around all of them; and
// NCCL communicators, with splitstep's profiler plugin as a run has it: NCCL reads
// NCCL_PROFILER_PLUGIN once, when it makes its first communicator in the process.
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>

#include "comm/NcclCallReader.hpp"

int main(int argc, char** argv) {
  if (const auto why_not = splitstep::requestNcclProfiler(SPLITSTEP_NCCL_PROFILER)) {
    std::cerr << *why_not << '\n';
  }
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  MPI_Finalize();
  return status;
}
