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

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "models/Workload.hpp"
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

// The checks of one model in one precision, run on the workload that was timed, after its
// timed modes. Its parameters are made rank 0's on every rank and kept, and every check, and the
// reference, start from them: the weights need only be the same on every rank and in the
// reference, not the initial ones. Building a model of its own for each check and for each
// reference drew every parameter from the CPU generator again, as many times: with the batches'
// random numbers, 8.8 s a check for the reference MLP (537 M parameters) on one H200, half of
// the default step's time.
class SyncCheck {
 public:
  // Collective over all ranks of `comm`. `host_batch`: this rank's batch, as the timed step had.
  // The check holds on to `plan`, `context`, `comm` and `workload`: they must outlive it.
  SyncCheck(const StepPlan& plan, const StepRecipe& recipe, const SuiteContext& context,
            Communicator& comm, Workload& workload, Batch host_batch);

  // Collective: one step with gradient sync from the kept parameters, then its checks. The
  // reference step runs on rank 0 only, once for every mode checked.
  StepCheckResult run(bool overlap);

 private:
  static void seedDropout(int rank);
  void restoreParameters();
  std::vector<at::Tensor> referenceGradients();

  const StepPlan& plan_;
  StepRecipe quiet_;  // the recipe without host work, delays or a rank's skipped optimizer
  const SuiteContext& context_;
  Communicator& comm_;
  Workload& workload_;
  Batch host_batch_;
  std::vector<at::Tensor> kept_;       // the parameters every check starts from
  std::vector<at::Tensor> reference_;  // rank 0: the reference gradients, once computed
};

}  // namespace splitstep
