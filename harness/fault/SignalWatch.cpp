#include "fault/SignalWatch.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

namespace splitstep {
namespace {

std::string signalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return fmt::format("signal {}", signal);
  }
}

// Ten ticks without waking: the process was stopped (or starved as badly).
constexpr double kStopGap = 0.5;

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "mpirun, pid 4321": a process by its command name.
std::string describeProcess(pid_t pid) {
  std::ifstream comm(fmt::format("/proc/{}/comm", pid));
  std::string name;
  if (!std::getline(comm, name) || name.empty()) return fmt::format("pid {}", pid);
  return fmt::format("{}, pid {}", name, pid);
}

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(fmt::format("interrupted ({})", signalName(signal))), signal_(signal) {}

SignalWatch::SignalWatch(double grace, std::function<void(int)> first,
                         std::function<void(int)> fallback, std::function<void()> last,
                         bool watch_launcher)
    : grace_(grace),
      first_(std::move(first)),
      fallback_(std::move(fallback)),
      last_(std::move(last)),
      launcher_(watch_launcher ? getppid() : 0),
      launcher_name_(launcher_ > 0 ? "launcher " + describeProcess(launcher_) : "") {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  // A launcher that leaves (mpirun at a second Ctrl-C) takes the reader of this process's stdout
  // with it: the next line printed would kill the rank by SIGPIPE before the watch, on its next
  // tick, saw the launcher gone and had the reason written. Ignored, the write fails instead.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous_pipe_);
  last_tick_ = steadySeconds();
  thread_ = std::thread([this] { watch(); });
}

SignalWatch::~SignalWatch() {
  stopping_ = true;
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  sigaction(SIGPIPE, &previous_pipe_, nullptr);
}

void SignalWatch::check() const {
  if (const int signal = received_.load(); signal != 0) throw Interrupted(signal);
}

void SignalWatch::lookAtOnSignal(std::vector<long> pids) {
  const std::lock_guard lock(look_mutex_);
  look_at_ = std::move(pids);
}

std::vector<std::pair<long, ProcessState>> SignalWatch::lookedAt() const {
  const std::lock_guard lock(look_mutex_);
  return looked_at_;
}

std::string SignalWatch::cause() const { return received_.load() != 0 ? cause_ : ""; }

void SignalWatch::begin(int signal, std::string cause) {
  {
    const std::lock_guard lock(look_mutex_);
    for (const long pid : look_at_) looked_at_.emplace_back(pid, processState(pid));
  }
  cause_ = std::move(cause);
  received_ = signal;
  hand(signal);
}

void SignalWatch::hand(int signal) {
  ++*pending_;
  std::thread([first = first_, pending = pending_, signal] {
    first(signal);
    --*pending;
  }).detach();
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
    siginfo_t info{};
    const int signal = sigtimedwait(&signals_, &info, &tick);
    const double now = steadySeconds();
    if (const double last_tick = last_tick_.load(); now - last_tick > kStopGap) {
      // The watch, which wakes every tick, was frozen with the process: it was stopped.
      stopped_for_ = now - last_tick;
      continued_at_ = now;
    }
    last_tick_ = now;
    // Read at once: the sender may be gone by the time the reason is written.
    const std::string cause =
        signal <= 0 ? ""
        : info.si_code == SI_USER && info.si_pid > 0
            ? fmt::format("{} from {}", signalName(signal), describeProcess(info.si_pid))
            : signalName(signal);
    if (signal == SIGUSR1) {
      // Only the first warning counts, and none after an interruption.
      if (warned_.load() == 0 && received_.load() == 0) {
        warning_cause_ = cause;
        warned_ = signal;
        hand(signal);
      }
    } else if (signal > 0 && received_.load() == 0) {
      begin(signal, cause);
      first_at = Clock::now();
    } else if (signal <= 0 && received_.load() == 0 && launcher_ > 0 && getppid() != launcher_) {
      // The launcher ended without a word (mpirun at a second Ctrl-C): this process was handed
      // to another parent, and MPI will notice and end it within a second.
      launcher_gone_ = true;
      begin(SIGHUP, launcher_name_ + ", gone");
      first_at = Clock::now();
    } else if (signal > 0) {
      // Never before the reason is on disk; the wait is bounded, since a second signal asks
      // to end now.
      const auto asked = Clock::now();
      while (pending_->load() > 0 && Clock::now() - asked < std::chrono::seconds(5)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      last_();
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
