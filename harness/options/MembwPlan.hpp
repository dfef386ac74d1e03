// The membw suite's part of the plan.
#pragma once

#include <cstdint>
#include <vector>

namespace splitstep {

struct MembwPlan {
  std::vector<std::uint64_t> bytes;  // size of each array
};

}  // namespace splitstep
