// The host's steady clock as seconds in a double: the one clock that every rank's timeline,
// telemetry reading and device interval is placed on (a double holds microseconds exactly for
// centuries of uptime).
#pragma once

#include <chrono>

namespace splitstep {

// Seconds on std::chrono::steady_clock (CLOCK_MONOTONIC: shared by the processes of one host).
inline double hostSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// An interval on the host's steady clock, in seconds.
struct HostSpan {
  double start = 0;
  double end = 0;
};

}  // namespace splitstep
