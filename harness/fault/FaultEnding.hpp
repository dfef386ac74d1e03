// How a run ends after a fault (a timeout, a peer that gave up, a signal, an error): the culprit
// named, every other rank told, rank 0's results written with the reason, one line printed, and
// the job ended without another collective, since a peer may be dead.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "cluster/Cluster.hpp"
#include "common/Watchdog.hpp"
#include "fault/FaultChannel.hpp"
#include "fault/RunEnding.hpp"
#include "fault/SignalWatch.hpp"

namespace splitstep {

// What a rank needs to end the run after a fault.
struct FaultScene {
  const Cluster& cluster;
  FaultChannel& faults;
  RunEnding& ending;
  const Watchdog& watchdog;
  const SignalWatch& signals;
  double grace;  // how long to wait for other ranks' answers and farewells
};

// The ranks of this host found stopped or gone: after a signal, who may have caused it.
std::vector<std::string> peersNotAlive(const Cluster& cluster);

// Ends the run after `error` (a timeout asks every rank what it is doing; the silent ones are
// to blame).
[[noreturn]] void endAfterFault(const std::exception& error, const FaultScene& scene);

// The fault handling of a run, set up on `watchdog` for as long as it lives: a peer's notice
// and this rank's signals are checked in every wait, a signal is described with the operation
// in flight, and a wait that fails ends the run where it stands, before anything is unwound.
class FaultHandling {
 public:
  FaultHandling(const Cluster& cluster, Watchdog& watchdog, RunEnding& ending,
                const SignalWatch& signals, double timeout);
  ~FaultHandling();
  FaultHandling(const FaultHandling&) = delete;
  FaultHandling& operator=(const FaultHandling&) = delete;

  [[noreturn]] void end(const std::exception& error) const { endAfterFault(error, scene_); }

 private:
  RunEnding& ending_;
  FaultChannel faults_;
  Watchdog::Registration interrupt_check_;
  FaultScene scene_;
};

}  // namespace splitstep
