// Gathers one text payload from every rank to rank 0 (MPI_Gatherv of the packed bytes).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace splitstep {

// Collective over `comm`. On rank 0: every rank's payload, indexed by rank. Elsewhere: empty.
std::vector<std::string> gatherToRoot(const std::string& payload, MPI_Comm comm);

}  // namespace splitstep
