#include "options/CpuPreset.hpp"

#include <algorithm>

namespace splitstep {

bool takesCpuPreset(std::span<const std::uint64_t> answers) {
  return !answers.empty() &&
         std::all_of(answers.begin(), answers.end(), [](std::uint64_t gpus) { return gpus == 0; });
}

}  // namespace splitstep
