// Memory bandwidth ceilings: on-device copy and triad, and host<->device copies.
#pragma once

#include "options/RunPlan.hpp"
#include "suites/MembwSpace.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class MembwSuite final : public Suite {
 public:
  explicit MembwSuite(MembwPlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return "membw"; }
  std::optional<std::string> refusal(const SuiteContext& context) const override;
  void run(const SuiteContext& context) override;
  std::size_t caseCount(const SuiteContext& context) const override;

 private:
  // The cases run, refusal and caseCount walk.
  MembwSpace space(const SuiteContext& context) const;

  MembwPlan plan_;
};

}  // namespace splitstep
