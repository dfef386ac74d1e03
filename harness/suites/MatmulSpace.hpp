// The cases of the matmul suite: every dtype, and within it every shape. Pure: whyNot and the
// refusal read only the plan, the device's kind and the agreed budget.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cases/MatmulCase.hpp"
#include "common/MemoryBudget.hpp"
#include "options/MatmulPlan.hpp"
#include "suites/CaseSpace.hpp"

namespace splitstep {

class MatmulSpace {
 public:
  MatmulSpace(const MatmulPlan& plan, bool on_gpu, const MemoryBudget& budget);

  // Each case's dtype and shape; what cuBLAS uses for fp32 is read back as the case runs.
  const std::vector<MatmulCase>& cases() const { return cases_; }
  std::size_t size() const { return cases_.size(); }

  // Why `c` is skipped: tf32 off a GPU, or its three matrices beyond the memory to spare.
  std::optional<Skip> whyNot(const MatmulCase& c) const;
  // The refusal at start, naming --matmul-sizes, where no case fits within the budget.
  std::optional<std::string> refusal() const;

  // "fp32 n=8192", "bf16 128x64x32": what the case is called in reports.
  static std::string name(const MatmulCase& c);

 private:
  bool on_gpu_;
  MemoryBudget budget_;
  std::vector<MatmulCase> cases_;
};

}  // namespace splitstep
