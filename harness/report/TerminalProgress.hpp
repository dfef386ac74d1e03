// The progress line rank 0 keeps on a terminal's stderr: which case of how many, the time since
// the first, and an estimate of the time left. Redrawn in place as each case begins; erased
// before a case's results are printed and at the end, so that the report starts on a clean line.
#pragma once

#include <atomic>
#include <functional>
#include <ostream>
#include <string>

#include "common/Progress.hpp"

namespace splitstep {

class TerminalProgress final : public Progress {
 public:
  // Seconds on a clock that never goes back.
  using Clock = std::function<double()>;
  // Wider lines are cut, so that the carriage return redraws one terminal line.
  static constexpr std::size_t kWidth = 100;

  explicit TerminalProgress(std::ostream& out, Clock clock = steadySeconds);
  void start(std::size_t cases) override;
  void caseStarted(const std::string& suite, const std::string& name) override;
  void clear() override;
  void finish() override;

  // "case 3 of 40 | 0:20 elapsed | about 4:06 left | allreduce nccl fp32 1 MiB": the line for
  // the `started`-th case of `total`, `elapsed` seconds after the run's cases began; the cases
  // done before it give the estimate (none before the second case).
  static std::string line(std::size_t started, std::size_t total, double elapsed,
                          const std::string& what);

  // Whether what this process writes to stderr reaches a terminal: its own stderr is one, or
  // its parent's is. Open MPI's mpirun gives the ranks it starts a pipe for stderr and copies
  // it to its own, so a rank's stderr is never a terminal itself.
  static bool stderrReachesTerminal();
  // Whether a file descriptor's target, as /proc/PID/fd/N links name it, is a terminal.
  static bool isTerminalPath(const std::string& target);

 private:
  static double steadySeconds();

  std::ostream& out_;
  Clock clock_;
  std::size_t total_ = 0;
  std::size_t started_ = 0;
  double began_ = 0;
  // Read by clear() from whichever thread ends the run.
  std::atomic<bool> drawn_ = false;
};

}  // namespace splitstep
