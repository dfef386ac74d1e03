// The correctness check of a synchronised step, run after the timed samples. From identical
// parameters, one step with gradient sync must
//  - leave every rank with bit-identical parameters after the optimizer, and
//  - produce, before the optimizer, the gradients one process computes by accumulating the
//    gradients of every rank's batch (what averaging over ranks means), within a norm-wise
//    tolerance per tensor that follows from the precision and the gradients' scale.
// Comparing gradients rather than updated parameters keeps an optimizer that turns rounding
// noise into full-size steps (AdamW on a gradient that is zero in exact arithmetic) from
// raising false alarms.
#pragma once

#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "suites/Suite.hpp"
#include "suites/step/TrainingStep.hpp"

namespace splitstep {

struct StepCheckResult {
  // "ranks identical" (parameter elements); "gradients vs one process" (tensors, rank 0).
  std::vector<Check> checks;
  std::vector<std::string> notes;  // the largest deviation seen, and where
};

// Seeds shared by the timed step and the check: parameters are the same on every rank, each
// rank's batch is its own.
inline constexpr std::uint64_t kModelSeed = 2026;
inline std::uint64_t batchSeed(int rank) { return 1000 + static_cast<std::uint64_t>(rank); }

// The relative norm-wise deviation of a synchronised gradient from the reference that still
// counts as equal, for a step in `precision`: a few units of the rounding of the precision the
// gradients are computed in, since kernels that accumulate with atomics differ run to run.
double gradientTolerance(StepPrecision precision);

// Collective over all ranks of `comm`. The reference step runs on rank 0 only.
StepCheckResult checkSynchronisedStep(StepModel model, const StepPlan& plan,
                                      const StepRecipe& recipe, bool overlap,
                                      const SuiteContext& context, Communicator& comm,
                                      c10::Device device);

}  // namespace splitstep
