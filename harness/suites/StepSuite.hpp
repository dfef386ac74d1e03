// DDP-style training steps: per-phase device time, gradient allreduce after or during backward,
// and the same step on one card (suites/step/).
#pragma once

#include <cstddef>

#include "common/StepKeys.hpp"
#include "suites/StepSpace.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

// Not a default: its default sizes are a GPU's, minutes per step on a CPU.
inline constexpr SuiteInfo kStepSuite = {
    step_keys::kSuite, true, false,
    "a DDP-style training step, phase by phase, with gradient sync modes"};

// Steps profiled in memory for the GPU's busy time, after each mode's timed ones (GPU ranks):
// a median over a few steps, and a profiler's overhead on the host kept out of every timed step.
inline constexpr std::size_t kBusySteps = 5;

class StepSuite final : public Suite {
 public:
  explicit StepSuite(StepPlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return std::string(kStepSuite.name); }
  std::optional<std::string> refusal(const SuiteContext& context) const override;
  void run(const SuiteContext& context) override;
  // One case per model, precision and sync mode; its phases are parts of it.
  std::size_t caseCount(const SuiteContext& context) const override;

 private:
  // The cases run and caseCount walk.
  StepSpace space(const SuiteContext& context) const;

  StepPlan plan_;
};

}  // namespace splitstep
