#include "common/Watchdog.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace splitstep {

Watchdog::Registration::~Registration() {
  if (owner_ != nullptr) owner_->watchers_.erase(id_);
}

Watchdog::Registration Watchdog::watch(std::function<void()> health_check,
                                       std::function<void()> on_expiry) {
  const int id = next_id_++;
  watchers_[id] = {std::move(health_check), std::move(on_expiry)};
  return Registration(*this, id);
}

void Watchdog::waitUntil(const std::function<bool()>& done, const std::string& waiting_for) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  // Spin first: most waits end within microseconds, and a sleep would add its own latency to
  // every timed collective. Then back off, so that a long wait does not burn a core.
  for (long polls = 0;; ++polls) {
    if (done()) return;
    for (auto& [id, watcher] : watchers_) {
      if (watcher.health_check) watcher.health_check();
    }
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited >= timeout_) {
      for (auto& [id, watcher] : watchers_) {
        if (watcher.on_expiry) watcher.on_expiry();
      }
      throw TimeoutError(fmt::format(
          "timed out after {:g} s waiting for {} during {}; another rank may have stalled or "
          "died (--timeout sets the limit)",
          timeout_, waiting_for, operation_));
    }
    if (polls > 100000) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace splitstep
