// Ctrl-C and SIGTERM (what mpirun sends every rank when it is interrupted, or when a rank died):
// the first lets the run end with what it has; the second ends the process at once. The watch
// wakes every 50 ms, so it also sees when the process was stopped (SIGSTOP) and runs again: a
// rank that was stopped owns up to being the one the others waited for.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fault/ProcessState.hpp"

namespace splitstep {

// The run was interrupted by a signal; thrown from the next wait after it arrived.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

class SignalWatch {
 public:
  // Blocks SIGINT, SIGTERM and SIGUSR1 in this thread, and so in every thread started after it
  // (call it before MPI_Init), and waits for them on a thread of its own. The first is handed at
  // once to `first` (on a thread of its own: it writes the reason, which may wait for a report
  // being written), and received() says which it was; the run is expected to end at its next wait.
  // mpirun kills a rank about a second after its SIGTERM, and a rank inside a long computation
  // reaches no wait in time: if the process still runs `grace` seconds after the first signal,
  // `fallback` is called with it, on a thread of its own. A second signal ends the process at
  // once, with status 128 + signal, but only once `first` has returned (at most 5 s) and then
  // `last` (a rank that must outlive another, bounded by the caller): a launcher that signals
  // twice in a row (srun at a time limit) must not cost the reason.
  // `watch_launcher`: this process was started by a launcher (mpirun, srun), its parent; should
  // the parent end without a signal to this process (mpirun at a second Ctrl-C leaves its
  // ranks behind), that counts as a first SIGHUP. SIGPIPE is ignored meanwhile: a launcher that
  // left must not end the process by the next line it prints.
  SignalWatch(double grace, std::function<void(int)> first, std::function<void(int)> fallback,
              std::function<void()> last, bool watch_launcher);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // 0, or the first SIGINT or SIGTERM received.
  int received() const { return received_.load(); }
  // What ended the run, once received() is set: the signal and who sent it, "SIGTERM from
  // mpirun, pid 4321" ("SIGINT" where the kernel sent it: a terminal's Ctrl-C), or "launcher
  // mpirun, pid 4321, gone".
  std::string cause() const;
  // SIGUSR1, Slurm's early warning ("finish this case, write, leave"), once it arrived: handed
  // to `first` too, but no wait throws for it; 0 before. warningCause() says who sent it.
  int warned() const { return warned_.load(); }
  std::string warningCause() const { return warned_.load() != 0 ? warning_cause_ : ""; }
  // The run ends because the launcher left (no signal came).
  bool launcherGone() const { return launcher_gone_.load(); }
  // How long this process was last stopped (frozen for more than half a second), if it ran again
  // within the last `window` seconds; 0 otherwise.
  double recentStop(double window) const;
  // Throws Interrupted once a signal has been received: a watchdog health check.
  void check() const;
  // The processes (other ranks of this host) whose state is read by the watch itself the moment
  // the first signal arrives, before received() is set and before any other thread runs: a
  // launcher signals every rank together when one died, and one that ends after its own signal
  // is gone a moment later, innocent, while this rank's other threads may still wait for a core.
  void lookAtOnSignal(std::vector<long> pids);
  // Each of those processes with its state when the first signal arrived; empty before.
  std::vector<std::pair<long, ProcessState>> lookedAt() const;

 private:
  void watch();
  // The first signal: records it with its cause and hands it to `first`.
  void begin(int signal, std::string cause);
  // Runs `first` with `signal` on a thread of its own.
  void hand(int signal);

  double grace_;
  std::function<void(int)> first_;
  std::function<void(int)> fallback_;
  std::function<void()> last_;
  pid_t launcher_;             // 0: none watched
  std::string launcher_name_;  // "launcher mpirun, pid 4321"
  std::string cause_;          // written by the watch before received_ is set, read after
  sigset_t signals_{};
  sigset_t previous_{};
  struct sigaction previous_pipe_ {};
  std::atomic<int> received_{0};
  std::atomic<double> stopped_for_{0};   // the last stop's length
  std::atomic<double> continued_at_{0};  // when it ended, seconds on the steady clock
  std::atomic<double> last_tick_;        // when the watch last woke, on the same clock
  std::atomic<bool> stopping_{false};
  std::atomic<bool> launcher_gone_{false};
  // How many calls of `first` have yet to return (the reason is not yet written). Shared with
  // the threads that run them, which may outlive the watch.
  std::shared_ptr<std::atomic<int>> pending_ = std::make_shared<std::atomic<int>>(0);
  std::atomic<int> warned_{0};
  std::string warning_cause_;  // written by the watch before warned_ is set, read after
  mutable std::mutex look_mutex_;
  std::vector<long> look_at_;
  std::vector<std::pair<long, ProcessState>> looked_at_;
  std::thread thread_;
};

}  // namespace splitstep
