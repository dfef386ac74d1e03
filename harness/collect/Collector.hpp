// Gathers one text payload from every rank to rank 0 (MPI_Igather of the lengths, MPI_Igatherv
// of the packed bytes), each waited for under the watchdog.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "collect/TimelineCodec.hpp"
#include "common/Watchdog.hpp"

namespace splitstep {

// Collective over `comm`. On rank 0: every rank's payload, indexed by rank. Elsewhere: empty.
// A rank that does not arrive within the watchdog's timeout ends it with a TimeoutError.
std::vector<std::string> gatherToRoot(const std::string& payload, MPI_Comm comm,
                                      Watchdog& watchdog);

// Collective over `comm`: every rank's timeline and telemetry readings on rank 0's clock (the
// offsets measured at `at_start` and now), at rank 0; empty elsewhere.
std::vector<RankTimeline> gatherTimelines(const Timeline& timeline,
                                          std::vector<TelemetryReading> readings,
                                          const ClockOffset& at_start, MPI_Comm comm,
                                          Watchdog& watchdog);

}  // namespace splitstep
