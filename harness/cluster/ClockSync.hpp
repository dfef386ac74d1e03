// How far each rank's host clock is from rank 0's, measured as NTP does: ping-pongs with rank 0,
// each giving the offset within half its round trip; the shortest round trip is the tightest.
// steady_clock is shared by the processes of one host (offset 0 within the error); across hosts
// the clocks start at different boots and drift by parts per million.
#pragma once

#include <mpi.h>

#include <vector>

#include "common/Watchdog.hpp"

namespace splitstep {

struct ClockOffset {
  double offset = 0;       // seconds: this rank's clock minus rank 0's
  double uncertainty = 0;  // seconds either side: half the round trip it was measured in
  double measured_at = 0;  // seconds on this rank's clock, when
};

// One ping-pong: when this rank sent, when rank 0 answered (on rank 0's clock), when the answer
// arrived (this rank's clock).
struct PingPong {
  double sent = 0;
  double root = 0;
  double received = 0;
};

// The offset from the round with the shortest round trip, assuming rank 0 read its clock
// halfway through it. Needs at least one round.
ClockOffset offsetFromRounds(const std::vector<PingPong>& rounds);

// Collective over `comm`: this rank's offset to rank 0 ({0, 0} on rank 0), from `rounds`
// ping-pongs with rank 0, which answers the ranks one after another. Every wait has the
// watchdog's deadline.
ClockOffset measureClockOffset(MPI_Comm comm, Watchdog& watchdog, int rounds = 20);

// Two measurements, at the start and the end of a run, as a line: `time` (this rank's clock)
// moved onto rank 0's, with the drift between them interpolated.
double onRootClock(double time, const ClockOffset& start, const ClockOffset& end);

}  // namespace splitstep
