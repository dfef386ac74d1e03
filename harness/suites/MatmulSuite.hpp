// Square GEMM throughput per dtype: the compute ceiling of each rank's device.
#pragma once

#include "options/MatmulPlan.hpp"
#include "suites/MatmulSpace.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

inline constexpr SuiteInfo kMatmulSuite = {
    "matmul", false, true, "GEMM throughput per dtype and shape: the compute ceiling"};

class MatmulSuite final : public Suite {
 public:
  explicit MatmulSuite(MatmulPlan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return std::string(kMatmulSuite.name); }
  std::optional<std::string> refusal(const SuiteContext& context) const override;
  void run(const SuiteContext& context) override;
  std::size_t caseCount(const SuiteContext& context) const override;

 private:
  // The cases run, refusal and caseCount walk.
  MatmulSpace space(const SuiteContext& context) const;

  MatmulPlan plan_;
};

}  // namespace splitstep
