// Figures derived from the collective suites' sweeps: for each collective, backend, dtype and
// placement a latency-bandwidth model of the median time per size across ranks and its
// projection to more ranks; and the step's T_seq and T_ddp projected from the same run's
// allreduce model, checked against the step where it was measured (docs/metrics.md,
// "Latency-bandwidth model" and "Projection"). It reads only CaseResults and their params.
#pragma once

#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "options/ProjectionPlan.hpp"

namespace splitstep {

// One DerivedResult per swept collective, backend, dtype and placement with at least three sizes,
// in the order they first appear.
std::vector<DerivedResult> deriveCollectiveFigures(const std::vector<CaseResult>& cases,
                                                   const ProjectionPlan& projection);

// One DerivedResult per step workload (model and precision) whose compute step and buckets were
// measured, where the same run fitted an fp32 allreduce (NCCL rather than MPI, in place rather
// than out of place: how the step reduces its gradients).
std::vector<DerivedResult> deriveStepProjection(const std::vector<CaseResult>& cases,
                                                const ProjectionPlan& projection);

}  // namespace splitstep
