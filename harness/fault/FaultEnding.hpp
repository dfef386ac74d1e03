// How a run ends after a fault (a timeout, a peer that gave up, a signal, an error): the culprit
// named, every other rank told, rank 0's results written with the reason, one line printed, and
// the job ended without another collective, since a peer may be dead.
#pragma once

#include <exception>
#include <set>
#include <string>
#include <vector>

#include "cluster/Cluster.hpp"
#include "common/Watchdog.hpp"
#include "fault/FaultChannel.hpp"
#include "fault/ProcessState.hpp"
#include "fault/RunEnding.hpp"
#include "fault/SignalWatch.hpp"

namespace splitstep {

// The ranks of this host found stopped or gone: after a signal, who may have caused it. Looked
// at by the signal watch the moment the first signal arrives (SignalWatch::lookAtOnSignal): the
// launcher signals every rank together, and a rank that ended after its own signal is gone a
// moment later, innocent.
class PeersAtSignal {
 public:
  PeersAtSignal(const Cluster& cluster, SignalWatch& signals);
  ~PeersAtSignal();
  PeersAtSignal(const PeersAtSignal&) = delete;
  PeersAtSignal& operator=(const PeersAtSignal&) = delete;
  // Described, but for the ranks in `ending` (which said they end after a signal of their own).
  std::vector<std::string> notAlive(const std::set<int>& ending = {}) const;

 private:
  const Cluster& cluster_;
  SignalWatch& signals_;
  std::vector<int> ranks_;  // the other ranks of this host, in the order their pids were given
};

// What a rank needs to end the run after a fault.
struct FaultScene {
  const Cluster& cluster;
  FaultChannel& faults;
  RunEnding& ending;
  const Watchdog& watchdog;
  const SignalWatch& signals;
  const PeersAtSignal& peers;
  double timeout;  // --timeout, in seconds
  double grace;    // how long to wait for other ranks' answers and farewells
};

// Ends the run after `error` (a timeout asks every rank what it is doing; the silent ones are
// to blame).
[[noreturn]] void endAfterFault(const std::exception& error, const FaultScene& scene);

// The fault handling of a run, set up on `watchdog` for as long as it lives: a peer's notice
// and this rank's signals are checked in every wait, a signal is described with the operation
// in flight, and a wait that fails ends the run where it stands, before anything is unwound.
class FaultHandling {
 public:
  FaultHandling(const Cluster& cluster, Watchdog& watchdog, RunEnding& ending, SignalWatch& signals,
                double timeout);
  ~FaultHandling();
  FaultHandling(const FaultHandling&) = delete;
  FaultHandling& operator=(const FaultHandling&) = delete;

  [[noreturn]] void end(const std::exception& error) const { endAfterFault(error, scene_); }
  // Ends the run after every rank left at the early warning (SIGUSR1) after the same case, as a
  // completed run would, and returns its exit status, 128 + SIGUSR1. Rank 0 wrote the reason
  // when its warning arrived; this says so where only another rank was warned.
  int endAtEarlyWarning() const;

 private:
  RunEnding& ending_;
  FaultChannel faults_;
  PeersAtSignal peers_;
  Watchdog::Registration interrupt_check_;
  FaultScene scene_;
};

}  // namespace splitstep
