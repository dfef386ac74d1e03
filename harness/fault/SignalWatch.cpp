#include "fault/SignalWatch.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace splitstep {
namespace {

const char* signalName(int signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

// Ten ticks without waking: the process was stopped (or starved as badly).
constexpr double kStopGap = 0.5;

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(fmt::format("interrupted ({})", signalName(signal))), signal_(signal) {}

SignalWatch::SignalWatch(double grace, std::function<void(int)> fallback)
    : grace_(grace), fallback_(std::move(fallback)) {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  last_tick_ = steadySeconds();
  thread_ = std::thread([this] { watch(); });
}

SignalWatch::~SignalWatch() {
  stopping_ = true;
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void SignalWatch::check() const {
  if (const int signal = received_.load(); signal != 0) throw Interrupted(signal);
}

double SignalWatch::recentStop(double window) const {
  // The thread asking may run before the watch does once the process is continued: a tick that
  // is overdue by more than the gap is a stop the watch has yet to notice.
  if (const double overdue = steadySeconds() - last_tick_.load(); overdue > kStopGap) {
    return overdue;
  }
  const double continued = continued_at_.load();
  if (continued <= 0 || steadySeconds() - continued > window) return 0;
  return stopped_for_.load();
}

void SignalWatch::watch() {
  using Clock = std::chrono::steady_clock;
  // A short tick, so that the destructor's request to stop is seen soon, and a stop's length
  // is known to within a tick.
  const timespec tick{0, 50'000'000};
  Clock::time_point first_at;
  bool fell_back = false;
  while (!stopping_) {
    const int signal = sigtimedwait(&signals_, nullptr, &tick);
    const double now = steadySeconds();
    if (const double last_tick = last_tick_.load(); now - last_tick > kStopGap) {
      // The watch, which wakes every tick, was frozen with the process: it was stopped.
      stopped_for_ = now - last_tick;
      continued_at_ = now;
    }
    last_tick_ = now;
    if (signal > 0 && received_.load() == 0) {
      received_ = signal;
      first_at = Clock::now();
    } else if (signal > 0) {
      static const char kLine[] = "splitstep: interrupted again: ending at once\n";
      [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, kLine, sizeof(kLine) - 1);
      _exit(128 + signal);
    }
    const int first = received_.load();
    if (first != 0 && !fell_back &&
        std::chrono::duration<double>(Clock::now() - first_at).count() >= grace_) {
      fell_back = true;
      // Its own thread: the fallback may block (on a report being written) while this one
      // still has to answer a second signal.
      std::thread([fallback = fallback_, first] { fallback(first); }).detach();
    }
  }
}

}  // namespace splitstep
