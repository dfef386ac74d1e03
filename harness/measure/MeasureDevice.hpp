// What the Measurer needs from a device: interval timers, a way to wait for queued work, and
// the optional timing aids (queued start, cache flush, graph replay, clock readings).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/HostClock.hpp"
#include "measure/Measurement.hpp"

namespace splitstep {

class IntervalTimer {
 public:
  virtual ~IntervalTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Seconds between start() and stop(); valid once the device has synchronized.
  virtual double seconds() const = 0;
  // Where start() and stop() lay on the host's steady clock, for timelines and telemetry; valid
  // once the device has synchronized, for an interval recorded after the device's latest
  // MeasureDevice::anchorClock(). Empty where the device cannot tell.
  virtual std::optional<HostSpan> hostSpan() const { return std::nullopt; }
};

// Holds the device's stream until released, so that work queued behind it starts without the
// host's launch gaps.
class StreamHold {
 public:
  virtual ~StreamHold() = default;
  virtual void release() = 0;
  // After a synchronize: whether the hold gave up waiting (the launch queue filled up).
  virtual bool timedOut() const = 0;
};

// A captured body, replayed with one launch.
class GraphReplay {
 public:
  virtual ~GraphReplay() = default;
  virtual void launch() = 0;
};

class MeasureDevice {
 public:
  virtual ~MeasureDevice() = default;
  virtual std::unique_ptr<IntervalTimer> newTimer() = 0;
  // Blocks until all work queued so far has finished.
  virtual void synchronize() = 0;
  // What the timers measure, for the report: "device (CUDA events)" or "host (steady clock)".
  virtual std::string clockName() const = 0;

  // The timing aids. Each returns empty (nullptr, false) where the device cannot do it, with
  // the reason in `why_not`.
  virtual std::unique_ptr<StreamHold> holdStream(std::string& why_not) = 0;
  // Queues work that evicts the device's last-level cache.
  virtual bool flushCache(std::string& why_not) = 0;
  // Captures one execution of `body`; the body is not run.
  virtual std::unique_ptr<GraphReplay> captureGraph(const std::function<void()>& body,
                                                    std::string& why_not) = 0;
  virtual std::optional<SmClock> smClock() = 0;
  // Matches the device's clock with the host's, for the hostSpan() of intervals recorded from
  // now on: waits for queued work, then notes a device time and the host time it happened at.
  // Never inside a timed interval. Nothing to do where timers read the host's clock.
  virtual void anchorClock() {}
};

}  // namespace splitstep
