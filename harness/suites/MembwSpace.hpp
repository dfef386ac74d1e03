// The cases of the membw suite: every size, and within it each kind of copy, in the order they
// run. Pure: whyNot and the refusal read only the plan, the device's kind and the agreed budget.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cases/MembwCase.hpp"
#include "common/MemoryBudget.hpp"
#include "options/MembwPlan.hpp"
#include "suites/CaseSpace.hpp"

namespace splitstep {

class MembwSpace {
 public:
  MembwSpace(const MembwPlan& plan, bool on_gpu, const MemoryBudget& budget);

  const std::vector<MembwCase>& cases() const { return cases_; }
  std::size_t size() const { return cases_.size(); }
  // The cases of each size, in order: one size's arrays serve all its kinds.
  std::vector<std::span<const MembwCase>> sizes() const;

  // Why `c` is skipped: its size's arrays beyond the memory to spare, or a host<->device copy
  // without a GPU.
  std::optional<Skip> whyNot(const MembwCase& c) const;
  // The refusal at start, naming --membw-bytes, where no size fits within the budget.
  std::optional<std::string> refusal() const;

  // "copy 64 MiB": what the case is called in reports.
  static std::string name(const MembwCase& c);

 private:
  bool on_gpu_;
  MemoryBudget budget_;
  std::vector<MembwCase> cases_;
};

}  // namespace splitstep
