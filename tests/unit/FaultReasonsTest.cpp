#include "fault/FaultReasons.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace splitstep {
namespace {

TEST(FaultReasons, ARankIsNamedWithItsHostPidAndState) {
  EXPECT_EQ(describeRank(1, {"node7", 4321}, "stopped"), "rank 1 (node7, pid 4321, stopped)");
  EXPECT_EQ(describeRank(0, {"node7", 4321}), "rank 0 (node7, pid 4321)");
  EXPECT_EQ(describeRank(3, {"node7", 0}), "rank 3 (node7)");
}

TEST(FaultReasons, ManyRanksAreListedUpToEight) {
  EXPECT_EQ(listRanks({"a", "b"}), "a, b");
  EXPECT_EQ(listRanks({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}),
            "1, 2, 3, 4, 5, 6, 7, 8 and 2 more");
}

TEST(FaultReasons, ATimeoutBlamesTheRanksThatDidNotAnswerOrWereStopped) {
  const TimeoutError timeout(3, "the other ranks at the barrier before a sample",
                             "allreduce mpi fp32 8 B");
  EXPECT_EQ(timeoutReason(timeout, 0, {silentRank("rank 1 (node7, pid 42, stopped)")}),
            "rank 1 (node7, pid 42, stopped) did not answer: rank 0 waited 3 s for the other "
            "ranks at the barrier before a sample during allreduce mpi fp32 8 B (--timeout)");
  EXPECT_EQ(timeoutReason(timeout, 2, {stoppedRank("rank 1 (node7, pid 42)", 14.06)}),
            "rank 1 (node7, pid 42) was stopped for 14.1 s: rank 2 waited 3 s for the other "
            "ranks at the barrier before a sample during allreduce mpi fp32 8 B (--timeout)");
  EXPECT_EQ(timeoutReason(timeout, 0, {}),
            "rank 0 waited 3 s for the other ranks at the barrier before a sample during "
            "allreduce mpi fp32 8 B (--timeout); every rank answered afterwards: the operation "
            "outlasted --timeout");
}

TEST(FaultReasons, FailuresAndSignalsAreOneLine) {
  EXPECT_EQ(failureReason("rank 1 (node7, pid 42)", "matmul fp32 n=65536",
                          "CUDA out of memory. Tried to allocate 16.00 GiB\nException raised "
                          "from malloc at CUDACachingAllocator.cpp:1\nframe #0: ..."),
            "rank 1 (node7, pid 42) failed during matmul fp32 n=65536: CUDA out of memory. Tried "
            "to allocate 16.00 GiB");
  EXPECT_EQ(interruptReason("SIGINT", "membw copy 1 GiB", {}),
            "interrupted (SIGINT) during membw copy 1 GiB");
  EXPECT_EQ(interruptReason("SIGTERM from mpirun, pid 7", "allreduce mpi fp32 1 MiB",
                            {"rank 1 (node7, pid 42, gone)"}),
            "interrupted (SIGTERM from mpirun, pid 7) during allreduce mpi fp32 1 MiB; rank 1 "
            "(node7, pid 42, gone) "
            "no longer running (a launcher ends the job when a rank dies)");
  EXPECT_EQ(
      stoppedRankInterruptReason("SIGTERM from mpiexec, pid 7", "allreduce mpi fp32 64 KiB", 10.06),
      "interrupted (SIGTERM from mpiexec, pid 7) during allreduce mpi fp32 64 KiB; this rank "
      "was stopped for 10.1 s, longer than --timeout, the others' deadline for it");
  EXPECT_EQ(warningReason("SIGUSR1 from slurmstepd, pid 9", "allreduce mpi fp32 1 MiB"),
            "warned (SIGUSR1 from slurmstepd, pid 9) during allreduce mpi fp32 1 MiB: the run "
            "ends once this case is kept");
  EXPECT_EQ(lateReason("rank 1 (node7) was stopped for 9.0 s: ..."),
            "this rank was late; the others gave up: rank 1 (node7) was stopped for 9.0 s: ...");
}

TEST(FaultReasons, TheFirstLineOfAnErrorIsShortenedAndEscaped) {
  EXPECT_EQ(firstLine("one\ntwo"), "one");
  EXPECT_EQ(firstLine("\x1b[31mred"), "\\x1b[31mred");
  const std::string line = firstLine(std::string(10'000, 'x'));
  EXPECT_EQ(line, std::string(300, 'x') + "... (10000 characters)");
}

}  // namespace
}  // namespace splitstep
