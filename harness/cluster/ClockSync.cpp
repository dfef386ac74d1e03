#include "cluster/ClockSync.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cluster/MpiWait.hpp"
#include "common/HostClock.hpp"

namespace splitstep {
namespace {

constexpr int kTag = 0;

void send(double value, int to, MPI_Comm comm, Watchdog& watchdog) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(&value, 1, MPI_DOUBLE, to, kTag, comm, &request) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Isend (clock offset) failed");
  }
  waitForRequest(watchdog, request, "rank " + std::to_string(to) + " to measure clock offsets");
}

double receive(int from, MPI_Comm comm, Watchdog& watchdog) {
  double value = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Irecv(&value, 1, MPI_DOUBLE, from, kTag, comm, &request) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Irecv (clock offset) failed");
  }
  waitForRequest(watchdog, request, "rank " + std::to_string(from) + " to measure clock offsets");
  return value;
}

}  // namespace

ClockOffset offsetFromRounds(const std::vector<PingPong>& rounds) {
  if (rounds.empty()) throw std::invalid_argument("a clock offset needs at least one round");
  const PingPong& best =
      *std::min_element(rounds.begin(), rounds.end(), [](const PingPong& a, const PingPong& b) {
        return a.received - a.sent < b.received - b.sent;
      });
  const double middle = (best.sent + best.received) / 2;
  return {middle - best.root, (best.received - best.sent) / 2, middle};
}

ClockOffset measureClockOffset(MPI_Comm comm, Watchdog& watchdog, int rounds) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // A communicator of its own, so that these messages never match anything else in flight.
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &own);
  ClockOffset result{0, 0, hostSeconds()};
  try {
    if (rank == 0) {
      for (int other = 1; other < size; ++other) {
        for (int i = 0; i < rounds; ++i) {
          receive(other, own, watchdog);
          send(hostSeconds(), other, own, watchdog);
        }
      }
    } else {
      std::vector<PingPong> measured;
      for (int i = 0; i < rounds; ++i) {
        PingPong round;
        round.sent = hostSeconds();
        send(round.sent, 0, own, watchdog);
        round.root = receive(0, own, watchdog);
        round.received = hostSeconds();
        measured.push_back(round);
      }
      result = offsetFromRounds(measured);
    }
  } catch (...) {
    MPI_Comm_free(&own);
    throw;
  }
  MPI_Comm_free(&own);
  return result;
}

double onRootClock(double time, const ClockOffset& start, const ClockOffset& end) {
  const double span = end.measured_at - start.measured_at;
  if (span <= 0) return time - start.offset;
  const double drift = (end.offset - start.offset) / span;
  return time - (start.offset + drift * (time - start.measured_at));
}

}  // namespace splitstep
