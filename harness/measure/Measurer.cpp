#include "measure/Measurer.hpp"

#include <memory>

namespace splitstep {

std::vector<double> Measurer::measure(const std::function<void()>& body) {
  for (int i = 0; i < settings_.warmup; ++i) body();
  timers_.synchronize();

  std::vector<std::unique_ptr<IntervalTimer>> samples;
  samples.reserve(static_cast<std::size_t>(settings_.samples));
  for (int s = 0; s < settings_.samples; ++s) {
    auto& timer = samples.emplace_back(timers_.newTimer());
    timer->start();
    for (int l = 0; l < settings_.loops; ++l) body();
    timer->stop();
  }
  timers_.synchronize();

  std::vector<double> seconds;
  seconds.reserve(samples.size());
  for (const auto& timer : samples) seconds.push_back(timer->seconds() / settings_.loops);
  return seconds;
}

}  // namespace splitstep
