// DDP-style training steps: per-phase device time, gradient allreduce after or during backward,
// and the same step on one card (suites/step/).
#pragma once

#include "common/StepKeys.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class StepSuite final : public Suite {
 public:
  explicit StepSuite(StepPlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return std::string(step_keys::kSuite); }
  void run(const SuiteContext& context) override;

 private:
  StepPlan plan_;
};

}  // namespace splitstep
