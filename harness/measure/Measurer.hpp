// Runs a case body: warm-up, then timed samples of `loops` executions each.
#pragma once

#include <functional>
#include <vector>

#include "measure/Clock.hpp"
#include "measure/MeasureSettings.hpp"

namespace splitstep {

class Measurer {
 public:
  Measurer(TimerSource& timers, MeasureSettings settings) : timers_(timers), settings_(settings) {}

  // Seconds per execution of `body`, one value per sample. Warm-up runs are not timed; samples
  // are queued back to back and read after one synchronize, so reading a timer never stalls
  // the device between samples.
  std::vector<double> measure(const std::function<void()>& body);

  std::string clockName() const { return timers_.clockName(); }

 private:
  TimerSource& timers_;
  MeasureSettings settings_;
};

}  // namespace splitstep
