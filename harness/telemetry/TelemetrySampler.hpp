// Telemetry while measuring: one thread per source reads it every interval and appends the
// reading to a buffer. The threads only read and append: they never touch a CUDA stream or
// MPI, so what is timed on the main thread does not wait for them.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "telemetry/TelemetryReading.hpp"

namespace splitstep {

// Where readings come from (NVML for one GPU, in device/). read() is called from one sampler
// thread only, so a source may keep state between readings (counters it turns into rates).
class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // A reading, with its time set to when its values were taken; empty when there was nothing to
  // read (the quantities are not supported here).
  virtual std::optional<TelemetryReading> read() = 0;
};

class TelemetrySampler {
 public:
  // Starts one thread per source, each reading every `interval` seconds (or as fast as its
  // source allows, where a reading takes longer).
  TelemetrySampler(std::vector<std::unique_ptr<TelemetrySource>> sources, double interval);
  // Stops the threads and waits for them.
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  double interval() const { return interval_; }
  // Readings taken in [from, to] (host seconds), in time order.
  std::vector<TelemetryReading> readings(double from, double to) const;
  // Every reading so far, in time order.
  std::vector<TelemetryReading> all() const;

 private:
  void run(TelemetrySource& source);
  void stopAndJoin();

  std::vector<std::unique_ptr<TelemetrySource>> sources_;
  double interval_;
  mutable std::mutex mutex_;
  std::condition_variable stopping_;
  bool stop_ = false;
  std::vector<TelemetryReading> readings_;  // in the order appended: sorted when read
  std::vector<std::thread> threads_;
};

}  // namespace splitstep
