// Waiting for a non-blocking MPI call under the watchdog: MPI has no timeouts of its own.
#pragma once

#include <mpi.h>

#include <string>

#include "common/Watchdog.hpp"

namespace splitstep {

// Polls `request` with MPI_Test (which also drives MPI's progress) until it completes; throws
// TimeoutError naming `waiting_for` once the watchdog's timeout has passed.
void waitForRequest(Watchdog& watchdog, MPI_Request& request, const std::string& waiting_for);

}  // namespace splitstep
