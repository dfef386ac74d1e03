#include "common/Watchdog.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <utility>

namespace splitstep {

TimeoutError::TimeoutError(double seconds, std::string waiting_for, std::string operation)
    : std::runtime_error(fmt::format("timed out after {:g} s waiting for {} during {}", seconds,
                                     waiting_for, operation)),
      seconds_(seconds),
      waiting_for_(std::move(waiting_for)),
      operation_(std::move(operation)) {}

Watchdog::Registration::~Registration() {
  if (owner_ != nullptr) owner_->watchers_.erase(id_);
}

Watchdog::Registration Watchdog::watch(std::function<void()> health_check,
                                       std::function<void()> on_expiry) {
  const int id = next_id_++;
  watchers_[id] = {std::move(health_check), std::move(on_expiry)};
  return Registration(*this, id);
}

void Watchdog::expire() {
  for (auto& [id, watcher] : watchers_) {
    if (watcher.on_expiry) watcher.on_expiry();
  }
}

std::string Watchdog::activity() const {
  const std::lock_guard lock(operation_mutex_);
  if (waiting_for_.empty()) return operation_;
  return fmt::format("waiting for {} during {}", waiting_for_, operation_);
}

void Watchdog::waitUntil(const std::function<bool()>& done, const std::string& waiting_for) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  // Waits nest (a health check may wait): the outer one is restored on every way out.
  std::string outer;
  {
    const std::lock_guard lock(operation_mutex_);
    outer = std::exchange(waiting_for_, waiting_for);
  }
  struct Restore {
    Watchdog& owner;
    std::string outer;
    ~Restore() {
      const std::lock_guard lock(owner.operation_mutex_);
      owner.waiting_for_ = std::move(outer);
    }
  } restore{*this, std::move(outer)};
  // Spin first: most waits end within microseconds, and a sleep would add its own latency to
  // every timed collective. Then back off, so that a long wait does not burn a core.
  paused_ = 0;
  auto last_poll = start;
  for (long polls = 0;; ++polls) {
    if (done()) return;
    try {
      for (auto& [id, watcher] : watchers_) {
        if (watcher.health_check) watcher.health_check();
      }
    } catch (const std::exception& error) {
      // A wait that ends in an error leaves nothing in flight that could block what follows.
      expire();
      if (failure_handler_) failure_handler_(error);
      throw;
    }
    const auto now = Clock::now();
    if (const double gap = std::chrono::duration<double>(now - last_poll).count();
        gap > kPauseGap) {
      paused_ += gap;
    }
    last_poll = now;
    const double waited = std::chrono::duration<double>(now - start).count() - paused_;
    if (waited >= timeout_) {
      expire();
      const TimeoutError error(timeout_, waiting_for, operation());
      if (failure_handler_) failure_handler_(error);
      throw error;
    }
    if (polls > 100000) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace splitstep
