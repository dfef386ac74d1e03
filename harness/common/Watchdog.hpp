// Every wait on another rank has a deadline (--timeout): a stalled or dead peer ends the job
// with a message naming the operation, instead of a hang.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace splitstep {

// A wait that outlasted the timeout. It knows what this rank waited for and what it was doing;
// who did not arrive is found afterwards (fault/FaultChannel), so the message does not guess.
class TimeoutError : public std::runtime_error {
 public:
  TimeoutError(double seconds, std::string waiting_for, std::string operation);
  double seconds() const { return seconds_; }
  const std::string& waitingFor() const { return waiting_for_; }
  const std::string& operation() const { return operation_; }

 private:
  double seconds_;
  std::string waiting_for_;
  std::string operation_;
};

class Watchdog {
 public:
  // Polls follow each other within microseconds, or a sleep of 100 us; a gap this long means
  // the process was not running.
  static constexpr double kPauseGap = 1.0;

  explicit Watchdog(double timeout_seconds) : timeout_(timeout_seconds) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  double timeoutSeconds() const { return timeout_; }

  // What this rank is doing now ("allreduce nccl fp32 1 MiB"), for the timeout message and
  // for the answer to another rank's roll call. Read from the signal thread too, so guarded.
  void setOperation(std::string operation) {
    const std::lock_guard lock(operation_mutex_);
    operation_ = std::move(operation);
  }
  std::string operation() const {
    const std::lock_guard lock(operation_mutex_);
    return operation_;
  }
  // "waiting for the other ranks at the barrier before a sample during allreduce mpi fp32 8 B"
  // inside a wait, the operation elsewhere: what this rank answers another rank's roll call.
  std::string activity() const;
  // Inside a wait: the seconds this process did not run during it (see waitUntil).
  double pausedInWait() const { return paused_; }

  // A check run during every wait, which throws to end it (an NCCL asynchronous error, another
  // rank's notice that it gave up), and an action run when a wait ends in an error, before the
  // error is thrown (aborting NCCL). Removed when the returned Registration is destroyed.
  class Registration {
   public:
    Registration(Watchdog& owner, int id) : owner_(&owner), id_(id) {}
    ~Registration();
    Registration(Registration&& other) noexcept : owner_(other.owner_), id_(other.id_) {
      other.owner_ = nullptr;
    }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    Registration& operator=(Registration&&) = delete;

   private:
    Watchdog* owner_;
    int id_;
  };
  [[nodiscard]] Registration watch(std::function<void()> health_check,
                                   std::function<void()> on_expiry);

  // Called when a wait ends in an error (a timeout, or a health check's), after the expiry
  // actions and before the error is thrown. A handler that ends the process there ends it with
  // everything the wait was part of still in place: buffers a collective in flight may still
  // write, which unwinding would free.
  void setFailureHandler(std::function<void(const std::exception&)> handler) {
    failure_handler_ = std::move(handler);
  }

  // Polls `done` until it returns true, running the health checks in between; throws
  // TimeoutError naming `waiting_for` and the operation once the timeout has passed. Time this
  // process did not run (a gap of more than kPauseGap between two polls: it was stopped) does
  // not count: a rank stopped and continued is the late one, not one that waited too long.
  void waitUntil(const std::function<bool()>& done, const std::string& waiting_for);

 private:
  void expire();

  struct Watcher {
    std::function<void()> health_check;
    std::function<void()> on_expiry;
  };

  double timeout_;
  mutable std::mutex operation_mutex_;
  std::string operation_ = "start-up";
  std::string waiting_for_;  // the wait in progress; empty outside waitUntil
  double paused_ = 0;        // of the wait in progress
  std::map<int, Watcher> watchers_;
  std::function<void(const std::exception&)> failure_handler_;
  int next_id_ = 0;
};

}  // namespace splitstep
