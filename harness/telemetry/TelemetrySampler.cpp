#include "telemetry/TelemetrySampler.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

namespace splitstep {
namespace {

void byTime(std::vector<TelemetryReading>& readings) {
  std::stable_sort(
      readings.begin(), readings.end(),
      [](const TelemetryReading& a, const TelemetryReading& b) { return a.time < b.time; });
}

}  // namespace

TelemetrySampler::TelemetrySampler(std::vector<std::unique_ptr<TelemetrySource>> sources,
                                   double interval)
    : sources_(std::move(sources)), interval_(interval) {
  try {
    for (const auto& source : sources_) {
      threads_.emplace_back([this, &source] { run(*source); });
    }
  } catch (...) {
    stopAndJoin();  // the destructor does not run for a constructor that throws
    throw;
  }
}

TelemetrySampler::~TelemetrySampler() { stopAndJoin(); }

void TelemetrySampler::stopAndJoin() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void TelemetrySampler::run(TelemetrySource& source) {
  using Clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
  auto next = Clock::now();
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    std::optional<TelemetryReading> reading = source.read();
    lock.lock();
    if (reading) readings_.push_back(*reading);
    // Ticks at a fixed rate; a reading that overran its tick starts the next one at once rather
    // than catching up with a burst.
    next = std::max(next + period, Clock::now());
    stopping_.wait_until(lock, next, [this] { return stop_; });
  }
}

std::vector<TelemetryReading> TelemetrySampler::readings(double from, double to) const {
  std::vector<TelemetryReading> selected;
  {
    const std::lock_guard lock(mutex_);
    std::copy_if(readings_.begin(), readings_.end(), std::back_inserter(selected),
                 [from, to](const TelemetryReading& r) { return r.time >= from && r.time <= to; });
  }
  byTime(selected);
  return selected;
}

std::vector<TelemetryReading> TelemetrySampler::all() const {
  std::vector<TelemetryReading> copy;
  {
    const std::lock_guard lock(mutex_);
    copy = readings_;
  }
  byTime(copy);
  return copy;
}

}  // namespace splitstep
