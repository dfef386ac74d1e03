// Memory bandwidth ceilings: on-device copy and triad, and host<->device copies.
#pragma once

#include "options/MembwPlan.hpp"
#include "suites/MembwSpace.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

inline constexpr SuiteInfo kMembwSuite = {
    "membw", false, true, "copy, triad and host<->device copies: the memory ceiling"};

class MembwSuite final : public Suite {
 public:
  explicit MembwSuite(MembwPlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return std::string(kMembwSuite.name); }
  std::optional<std::string> refusal(const SuiteContext& context) const override;
  void run(const SuiteContext& context) override;
  std::size_t caseCount(const SuiteContext& context) const override;

 private:
  // The cases run, refusal and caseCount walk.
  MembwSpace space(const SuiteContext& context) const;

  MembwPlan plan_;
};

}  // namespace splitstep
