// Ctrl-C and SIGTERM (what mpirun sends every rank when it is interrupted, or when a rank died):
// the first lets the run end with what it has; the second ends the process at once. The watch
// wakes every 50 ms, so it also sees when the process was stopped (SIGSTOP) and runs again: a
// rank that was stopped owns up to being the one the others waited for.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <stdexcept>
#include <thread>

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
  // Blocks SIGINT and SIGTERM in this thread, and so in every thread started after it (call it
  // before MPI_Init), and waits for them on a thread of its own. After the first, received()
  // says which; the run is expected to end at its next wait. mpirun kills a rank about a second
  // after its SIGTERM, and a rank inside a long computation reaches no wait in time: if the
  // process still runs `grace` seconds after the first signal, `fallback` is called with it, on
  // a thread of its own. A second signal ends the process at once, with status 128 + signal.
  SignalWatch(double grace, std::function<void(int)> fallback);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // 0, or the first SIGINT or SIGTERM received.
  int received() const { return received_.load(); }
  // How long this process was last stopped (frozen for more than half a second), if it ran again
  // within the last `window` seconds; 0 otherwise.
  double recentStop(double window) const;
  // Throws Interrupted once a signal has been received: a watchdog health check.
  void check() const;

 private:
  void watch();

  double grace_;
  std::function<void(int)> fallback_;
  sigset_t signals_{};
  sigset_t previous_{};
  std::atomic<int> received_{0};
  std::atomic<double> stopped_for_{0};   // the last stop's length
  std::atomic<double> continued_at_{0};  // when it ended, seconds on the steady clock
  std::atomic<double> last_tick_;        // when the watch last woke, on the same clock
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace splitstep
