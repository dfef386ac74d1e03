// Every wait on another rank has a deadline (--timeout): a stalled or dead peer ends the job
// with a message naming the operation, instead of a hang.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

namespace splitstep {

class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Watchdog {
 public:
  explicit Watchdog(double timeout_seconds) : timeout_(timeout_seconds) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  double timeoutSeconds() const { return timeout_; }

  // What this rank is doing now ("allreduce fp32 1 MiB over nccl"), for the timeout message.
  void setOperation(std::string operation) { operation_ = std::move(operation); }
  const std::string& operation() const { return operation_; }

  // A check run during every wait, which throws to end it (an NCCL asynchronous error), and an
  // action run when a wait expires, before the TimeoutError (aborting NCCL). Removed when the
  // returned Registration is destroyed.
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

  // Polls `done` until it returns true, running the health checks in between; throws
  // TimeoutError naming `waiting_for` and the operation once the timeout has passed.
  void waitUntil(const std::function<bool()>& done, const std::string& waiting_for);

 private:
  struct Watcher {
    std::function<void()> health_check;
    std::function<void()> on_expiry;
  };

  double timeout_;
  std::string operation_ = "start-up";
  std::map<int, Watcher> watchers_;
  int next_id_ = 0;
};

}  // namespace splitstep
