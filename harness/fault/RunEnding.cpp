#include "fault/RunEnding.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <cstdlib>
#include <exception>
#include <iostream>

#include "fault/SignalWatch.hpp"

namespace splitstep {

void RunEnding::setLabel(std::string label) {
  const std::lock_guard lock(mutex_);
  label_ = std::move(label);
}

void RunEnding::setEarlyReport(std::function<void(const std::string&)> write) {
  const std::lock_guard lock(mutex_);
  early_report_ = std::move(write);
}

void RunEnding::setInterruptReason(std::function<std::string(int)> describe, bool at_signal) {
  const std::lock_guard lock(mutex_);
  interrupt_reason_ = std::move(describe);
  at_signal_ = at_signal;
}

void RunEnding::setBeforeExit(std::function<void()> wait) {
  const std::lock_guard lock(mutex_);
  before_exit_ = std::move(wait);
}

void RunEnding::beforeExit() {
  std::function<void()> wait;
  {
    // A copy, run unlocked: rank 0's report may hold the lock while this waits.
    const std::lock_guard lock(mutex_);
    wait = before_exit_;
  }
  if (wait) wait();
}

void RunEnding::endAtSignal(int signal) {
  const std::lock_guard lock(mutex_);
  if (signal == SIGUSR1) warned_ = true;
  if (!interrupt_reason_ || ended_) return;
  std::string reason = interrupt_reason_(signal);
  if (at_signal_) {
    endLocked(reason, reason);
  } else if (signal != SIGUSR1) {
    // What the fallback says: a warning is no interruption.
    signal_reason_ = std::move(reason);
  }
}

void RunEnding::completed() {
  const std::lock_guard lock(mutex_);
  ended_ = true;
}

bool RunEnding::end(const std::string& reason, const std::string& line) {
  const std::lock_guard lock(mutex_);
  return endLocked(reason, line);
}

void RunEnding::endOnSignal(int signal) {
  {
    const std::lock_guard lock(mutex_);
    if (!ended_) {
      const std::string reason = !signal_reason_.empty() ? signal_reason_
                                 : interrupt_reason_     ? interrupt_reason_(signal)
                                                         : Interrupted(signal).what();
      endLocked(reason, reason);
    }
  }
  std::_Exit(128 + signal);
}

bool RunEnding::endLocked(const std::string& reason, const std::string& line) {
  if (ended_) return false;
  ended_ = true;
  std::string failed_report;
  if (early_report_) {
    try {
      early_report_(reason);
    } catch (const std::exception& e) {
      failed_report = fmt::format(" (and the results could not be written: {})", e.what());
    }
  }
  // One write of the whole line: mpirun merges the ranks' output, and a line written in pieces
  // could be broken by another rank's.
  std::cerr << fmt::format("splitstep: {}: {}{}\n", label_, line, failed_report) << std::flush;
  return true;
}

}  // namespace splitstep
