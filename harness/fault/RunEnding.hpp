// How the run ends, decided once: completed, or early with a reason (a timeout, a rank that
// failed or gave up, a signal). Rank 0's reports then end with that reason, and the rank prints
// one line. Shared by the run and the signal watch's thread, so guarded by one mutex, which
// rank 0's reporting also holds: an ending never cuts a report in half.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>

namespace splitstep {

// Every rank agreed, after a case was gathered, to leave at Slurm's early warning (SIGUSR1):
// thrown from that point, where no collective is in flight.
class EarlyWarning : public std::runtime_error {
 public:
  EarlyWarning() : std::runtime_error("the early warning (SIGUSR1)") {}
};

class RunEnding {
 public:
  // Held by whoever writes reports.
  std::mutex& reportMutex() { return mutex_; }

  // "rank 1 on node7": how this rank's line names it.
  void setLabel(std::string label);
  // Rank 0, once it reports: ends its reports early with a reason.
  void setEarlyReport(std::function<void(const std::string& reason)> write);
  // While the run goes on: the reason a signal gives (what the run was doing, which peers are
  // gone). Cleared (nullptr) before what it reads goes away.
  // `at_signal`: the reason is written as soon as the first signal arrives (rank 0, which
  // writes the results), before the case in flight is finished or abandoned.
  void setInterruptReason(std::function<std::string(int signal)> describe, bool at_signal);

  // The reports were finalised: an ending after this changes nothing.
  void completed();
  // Once per process: ends rank 0's reports with `reason` and prints "splitstep: <label>:
  // <line>" to stderr. Returns false (and does nothing) when the run had already ended.
  bool end(const std::string& reason, const std::string& line);

  // The signal watch's first word of a signal: describes it at once (what the fallback then
  // says), and ends the run with that reason where setInterruptReason asked for it; the
  // process goes on to end at its next wait.
  void endAtSignal(int signal);
  // SIGUSR1 reached endAtSignal: the run is to leave once the case in flight is kept.
  bool warned() const { return warned_.load(); }
  // What this process waits for before a second signal ends it at once: rank 0 of its host,
  // still writing the results, which the launcher kills as soon as another rank of the host
  // exits. Bounded by whoever sets it; cleared (nullptr) before what it reads goes away.
  void setBeforeExit(std::function<void()> wait);
  // The signal watch's last word before a second signal ends the process: runs that wait.
  void beforeExit();
  // The signal watch's fallback, when the run did not end by itself after a signal: ends it
  // with the interrupt's reason and exits the process with status 128 + signal.
  [[noreturn]] void endOnSignal(int signal);

 private:
  bool endLocked(const std::string& reason, const std::string& line);

  std::mutex mutex_;
  std::string label_ = "rank ?";
  std::function<void(const std::string&)> early_report_;
  std::function<std::string(int)> interrupt_reason_;
  std::function<void()> before_exit_;
  std::string signal_reason_;  // described when the signal arrived
  bool at_signal_ = false;
  std::atomic<bool> warned_{false};
  bool ended_ = false;
};

}  // namespace splitstep
