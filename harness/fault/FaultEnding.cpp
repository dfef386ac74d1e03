#include "fault/FaultEnding.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "fault/FaultReasons.hpp"
#include "fault/ProcessState.hpp"

namespace splitstep {
namespace {

// A rank stopped this long just before a roll call is the one the others waited for; a launcher
// continues every rank (SIGCONT) before it ends a job, which stops none for long.
constexpr double kLongStop = 0.5;

RankPlace placeOf(const Cluster& cluster, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return {cluster.hosts()[r], cluster.pids()[r]};
}

// A rank as a culprit is named: with its state where it runs on this host.
std::string describePeer(const Cluster& cluster, int rank) {
  const RankPlace place = placeOf(cluster, rank);
  const std::string_view state =
      place.host == cluster.host() ? describe(processState(place.pid)) : std::string_view();
  return describeRank(rank, place, state);
}

}  // namespace

PeersAtSignal::PeersAtSignal(const Cluster& cluster, SignalWatch& signals)
    : cluster_(cluster), signals_(signals) {
  std::vector<long> pids;
  for (int r = 0; r < cluster.size(); ++r) {
    const RankPlace place = placeOf(cluster, r);
    if (r != cluster.rank() && place.host == cluster.host()) {
      ranks_.push_back(r);
      pids.push_back(place.pid);
    }
  }
  signals.lookAtOnSignal(std::move(pids));
}

PeersAtSignal::~PeersAtSignal() { signals_.lookAtOnSignal({}); }

std::vector<std::string> PeersAtSignal::notAlive(const std::set<int>& ending) const {
  // The watch looked at the pids in the order they were given: ranks_[i]'s is the i-th.
  const std::vector<std::pair<long, ProcessState>> looked = signals_.lookedAt();
  std::vector<std::string> described;
  for (std::size_t i = 0; i < looked.size() && i < ranks_.size(); ++i) {
    const int rank = ranks_[i];
    const ProcessState state = looked[i].second;
    if (state != ProcessState::Alive && ending.count(rank) == 0) {
      described.push_back(describeRank(rank, placeOf(cluster_, rank), describe(state)));
    }
  }
  return described;
}

namespace {

// An interrupt's reason, with the peers it names. A launcher that left is the cause itself: the
// ranks it left behind end on their own, at different moments, and none of them is to blame. A
// rank stopped for longer than --timeout until just before is why its peers left (they gave up
// on it, and the launcher then ends the job): it names none of them, and says so of itself.
std::string describeInterrupt(const SignalWatch& signals, const Watchdog& watchdog,
                              const PeersAtSignal& peers, const std::set<int>& ending,
                              double timeout) {
  if (const double stopped = signals.recentStop(timeout); stopped >= timeout) {
    return stoppedRankInterruptReason(signals.cause(), watchdog.operation(), stopped);
  }
  return interruptReason(
      signals.cause(), watchdog.operation(),
      signals.launcherGone() ? std::vector<std::string>{} : peers.notAlive(ending));
}

// Open MPI's daemon ends a job with SIGTERM and SIGKILLs its ranks still running once its grace
// period is over, or as soon as one of them exits, whichever comes first: a rank that exits at
// once after its SIGTERM gets rank 0 of its host killed before its results are written. Such a
// rank waits, up to the grace, for rank 0 to end first. Ranks of other hosts have other daemons.
// Rank 0's process where this rank must outlive it, 0 where not (rank 0 itself, another host).
long rankZeroToOutlive(const Cluster& cluster) {
  const RankPlace zero = placeOf(cluster, 0);
  return cluster.rank() != 0 && zero.host == cluster.host() ? zero.pid : 0;
}

// `tick` runs between looks, every millisecond or so.
template <typename Tick>
void outlive(long pid, double grace, Tick tick) {
  const auto start = std::chrono::steady_clock::now();
  while (pid != 0 && processState(pid) == ProcessState::Alive &&
         std::chrono::steady_clock::now() - start < std::chrono::duration<double>(grace)) {
    tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void outliveRankZero(const FaultScene& scene) {
  outlive(rankZeroToOutlive(scene.cluster), scene.grace, [&scene] { scene.faults.flush(0.001); });
}

// Ends the run after `error`: names the culprit (a timeout asks every rank what it is doing;
// the silent ones are to blame), tells every other rank, has rank 0 write what it has with the
// reason, prints one line, and ends the job, without another collective: a peer may be dead.
}  // namespace

[[noreturn]] void endAfterFault(const std::exception& error, const FaultScene& scene) {
  const Cluster& cluster = scene.cluster;
  const int rank = cluster.rank();
  std::string reason;
  std::string line;
  std::vector<int> culprits;
  std::vector<int> silent;   // ranks known not to answer anything
  bool zero_silent = false;  // rank 0 did not answer this rank's own roll call
  int status = 1;
  if (const auto* timeout = dynamic_cast<const TimeoutError*>(&error)) {
    const FaultChannel::Answers answers =
        scene.faults.rollCall(scene.grace, "ending after a timeout");
    std::vector<std::string> blamed;
    for (int r = 0; r < cluster.size(); ++r) {
      const auto answer = answers.answers.find(r);
      if (std::find(answers.silent.begin(), answers.silent.end(), r) != answers.silent.end()) {
        blamed.push_back(silentRank(describePeer(cluster, r)));
      } else if (answer != answers.answers.end() && answer->second.stopped_for >= kLongStop) {
        blamed.push_back(stoppedRank(describePeer(cluster, r), answer->second.stopped_for));
      } else {
        continue;
      }
      culprits.push_back(r);
    }
    silent = answers.silent;
    zero_silent = std::find(silent.begin(), silent.end(), 0) != silent.end();
    reason = line = timeoutReason(*timeout, rank, blamed);
    scene.faults.giveUp(reason, culprits, scene.grace);
  } else if (const auto* peer = dynamic_cast<const PeerGaveUp*>(&error)) {
    reason = peer->what();
    culprits = peer->culprits();
    silent = culprits;  // as far as this rank knows
    const bool late = std::find(culprits.begin(), culprits.end(), rank) != culprits.end();
    line = late ? lateReason(reason) : fmt::format("rank {} gave up: {}", peer->from(), reason);
  } else if (const auto* signal = dynamic_cast<const Interrupted*>(&error)) {
    // The launcher ends the job within a second of its SIGTERM: no roll call, and the results
    // are written before the others are told, which may take the last 0.1 s. The other ranks
    // say farewell (to a rank 0 that heard another's notice first) and leave after rank 0, below.
    status = 128 + signal->signal();
    reason = line = describeInterrupt(scene.signals, scene.watchdog, scene.peers,
                                      scene.faults.endingRanks(), scene.timeout);
    // Rank 0 wrote its reason when the signal arrived (setInterruptReason): this changes nothing.
    scene.ending.end(reason, line);
    scene.faults.giveUp(reason, {}, 0.1);
    if (rank == 0) std::_Exit(status);
  } else {
    culprits = {rank};
    const std::string operation = scene.watchdog.operation();
    reason = failureReason(describeRank(rank, placeOf(cluster, rank)), operation, error.what());
    line = fmt::format("failed during {}: {}", operation, firstLine(error.what()));
    scene.faults.giveUp(reason, culprits, scene.grace);
  }
  // The signal this process received decides its exit status, whichever path ended it (a
  // peer's notice may have come first).
  if (const int received = scene.signals.received(); received != 0) status = 128 + received;
  scene.ending.end(reason, line);
  if (rank == 0) {
    // Rank 0 ends the job once the others could print their line; a rank that did not answer
    // will not.
    std::vector<int> others;
    for (int r = 1; r < cluster.size(); ++r) {
      if (std::find(silent.begin(), silent.end(), r) == silent.end()) others.push_back(r);
    }
    scene.faults.awaitFarewells(others, scene.grace);
  } else if (zero_silent) {
    // Rank 0 did not answer this rank's roll call: it cannot end the job, and waiting longer for
    // it would stretch the deadline past --timeout and one grace. This rank ends it now.
  } else {
    scene.faults.sayFarewell();
    // Rank 0 ends the job; should it be the one that stalled, this rank does, a while later.
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start <
           std::chrono::duration<double>(4 * scene.grace)) {
      scene.faults.flush(0.05);
      if (scene.signals.received() != 0) {
        outliveRankZero(scene);
        std::_Exit(status);
      }
    }
  }
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

FaultHandling::FaultHandling(const Cluster& cluster, Watchdog& watchdog, RunEnding& ending,
                             SignalWatch& signals, double timeout)
    : ending_(ending),
      // Its poll is the first check of every wait: a peer's notice wins over this rank's signal.
      faults_(cluster.comm(), watchdog,
              [&watchdog, &signals, timeout] {
                return FaultChannel::Answer{
                    watchdog.activity(),
                    std::max(signals.recentStop(2 * timeout), watchdog.pausedInWait())};
              }),
      peers_(cluster, signals),
      interrupt_check_(watchdog.watch([&signals] { signals.check(); }, nullptr)),
      scene_{cluster, faults_, ending,  watchdog,
             signals, peers_,  timeout, std::clamp(timeout / 4, 1.0, 10.0)} {
  // Described when a signal arrives (which looks at the peers then). Rank 0 writes it at once;
  // the others of its host outlive it (outliveRankZero), so none is gone yet for having ended.
  ending.setInterruptReason(
      [this, &watchdog, &signals](int signal) {
        if (signal == SIGUSR1) return warningReason(signals.warningCause(), watchdog.operation());
        return describeInterrupt(signals, watchdog, peers_, {}, scene_.timeout);
      },
      cluster.rank() == 0);
  // A second signal ends this process from the watch's thread, where the fault channel is not
  // to be touched: it only waits. Srun at a time limit signals every rank twice in a row.
  ending.setBeforeExit(
      [zero = rankZeroToOutlive(cluster), grace = scene_.grace] { outlive(zero, grace, [] {}); });
  watchdog.setFailureHandler([this](const std::exception& error) { end(error); });
}

int FaultHandling::endAtEarlyWarning() const {
  ending_.end(warningReason("SIGUSR1, to another rank", "the run"), "left at the early warning");
  return 128 + SIGUSR1;
}

FaultHandling::~FaultHandling() {
  ending_.setBeforeExit(nullptr);
  ending_.setInterruptReason(nullptr, false);
}

}  // namespace splitstep
