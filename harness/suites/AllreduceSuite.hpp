// Allreduce (fp32 sum, out of place) time and bandwidth for a list of message sizes.
#pragma once

#include "options/RunPlan.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class AllreduceSuite final : public Suite {
 public:
  explicit AllreduceSuite(AllreducePlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return "allreduce"; }
  std::vector<Sample> run(const SuiteContext& context) override;

 private:
  AllreducePlan plan_;
};

}  // namespace splitstep
