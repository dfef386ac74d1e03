// The sentences a run ends with after a fault: who did not arrive, who failed, what interrupted
// it. Pure functions of what the ranks found, so that each wording is tested alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/Watchdog.hpp"

namespace splitstep {

// Where a rank runs, as start-up gathered it.
struct RankPlace {
  std::string host;
  long pid = 0;
};

// "rank 1 (node7, pid 4321, stopped)": `state` is ProcessState's word, empty when unknown or
// alive.
std::string describeRank(int rank, const RankPlace& place, std::string_view state = "");

// At most eight descriptions joined with ", ", then "and N more".
std::string listRanks(const std::vector<std::string>& descriptions);

// A culprit of a timeout: a rank that did not answer the roll call, "rank 1 (node7, pid 42,
// stopped) did not answer", or one that answered but had been stopped, "rank 1 (node7, pid 42)
// was stopped for 3.4 s".
std::string silentRank(const std::string& rank);
std::string stoppedRank(const std::string& rank, double seconds);

// After this rank's wait timed out and the others were asked what they were doing:
// "rank 1 (node7, pid 42, stopped) did not answer: rank 0 waited 3 s for the other ranks at the
// barrier before a sample during allreduce mpi fp32 8 B (--timeout)".
std::string timeoutReason(const TimeoutError& timeout, int rank,
                          const std::vector<std::string>& culprits);

// "rank 1 (node7) failed during matmul fp32 n=4096: <the first line of what>".
std::string failureReason(const std::string& rank, const std::string& operation,
                          std::string_view what);

// "interrupted (SIGTERM from mpirun, pid 7) during allreduce mpi fp32 8 B; rank 1 (node7, pid
// 42, gone) no longer running (...)": what ended the run as SignalWatch::cause() says it (the
// signal as it arrived and who sent it: mpirun turns a Ctrl-C into SIGTERM, and the rank says
// what it received); the ranks on this host found stopped or gone are named, since a launcher
// sends every rank SIGTERM when one of them dies.
std::string interruptReason(const std::string& cause, const std::string& operation,
                            const std::vector<std::string>& not_alive);

// "interrupted (SIGTERM from mpirun, pid 7) during allreduce mpi fp32 8 B; this rank was stopped
// for 10.1 s, longer than --timeout, the others' deadline for it": the interrupt of a rank that was
// itself stopped until just before. The peers that left did so because of it, and none is named.
std::string stoppedRankInterruptReason(const std::string& cause, const std::string& operation,
                                       double stopped_for);

// "warned (SIGUSR1 from slurmstepd, pid 7) during allreduce mpi fp32 1 MiB: the run ends once
// this case is kept": Slurm's early warning, written when it arrives.
std::string warningReason(const std::string& cause, const std::string& operation);

// The line of a rank that another rank gave up waiting for, once it runs again.
std::string lateReason(const std::string& reason);

// The first line of `text`, shortened and escaped: exception texts (LibTorch's carry a stack
// trace) become one line.
std::string firstLine(std::string_view text);

}  // namespace splitstep
