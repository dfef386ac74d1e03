// The host's clock as the Measurer reads it (time limits, host time per sample, where a case's
// time goes): a steady clock in a run, one the test advances in unit tests.
#pragma once

#include <chrono>

namespace splitstep {

class WallClock {
 public:
  virtual ~WallClock() = default;
  // Seconds since an arbitrary, fixed start; never decreasing.
  virtual double seconds() = 0;
};

class SteadyWallClock final : public WallClock {
 public:
  double seconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace splitstep
