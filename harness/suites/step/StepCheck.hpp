// The correctness check of a synchronised step, run after the timed samples: from identical
// parameters, one step with gradient sync must leave every rank with the same parameters, equal
// (within the precision's tolerance) to one process stepping on all ranks' batches, with the
// gradient accumulated over them as the ranks' gradients are averaged. A note compares with one
// pass over the concatenated batch too, which under autocast rounds the gradient differently.
#pragma once

#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "suites/Suite.hpp"
#include "suites/step/TrainingStep.hpp"

namespace splitstep {

struct StepCheckResult {
  std::vector<Check> checks;  // "ranks identical" (elements); "one-process reference" (tensors)
  std::vector<std::string> notes;  // the largest errors seen
};

// Seeds shared by the timed step and the check: parameters are the same on every rank, each
// rank's batch is its own.
inline constexpr std::uint64_t kModelSeed = 2026;
inline std::uint64_t batchSeed(int rank) { return 1000 + static_cast<std::uint64_t>(rank); }

// Collective over all ranks of `comm`. The reference step runs on rank 0 only.
StepCheckResult checkSynchronisedStep(StepModel model, const StepPlan& plan,
                                      const StepRecipe& recipe, bool overlap,
                                      const SuiteContext& context, Communicator& comm,
                                      c10::Device device);

}  // namespace splitstep
