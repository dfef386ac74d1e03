// What the Measurer needs from a device: interval timers and a way to wait for queued work.
#pragma once

#include <memory>
#include <string>

namespace splitstep {

class IntervalTimer {
 public:
  virtual ~IntervalTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Seconds between start() and stop(); valid once the owning TimerSource has synchronized.
  virtual double seconds() const = 0;
};

class TimerSource {
 public:
  virtual ~TimerSource() = default;
  virtual std::unique_ptr<IntervalTimer> newTimer() = 0;
  // Blocks until all work queued so far has finished.
  virtual void synchronize() = 0;
  // What the timers measure, for the report: "device (CUDA events)" or "host (steady clock)".
  virtual std::string clockName() const = 0;
};

}  // namespace splitstep
