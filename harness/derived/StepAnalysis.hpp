// Where a training step's time goes: figures derived from the step suite's cases of one workload
// (its modes none, sequential, overlap and single, and their phases) and a diagnosis.
// It reads only CaseResults and their params (docs/metrics.md, "Training step").
#pragma once

#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"

namespace splitstep {

// Diagnosis thresholds (docs/metrics.md). A rule fires when its figure is strictly above.
// The data phase's share of the step.
inline constexpr double kInputBoundShare = 0.50;
// Exposed communication over the synchronised step (T_ddp, or T_seq without overlap).
inline constexpr double kCommunicationBoundShare = 0.20;
// A rank's compute step (mode none) over the median rank's, minus 1.
inline constexpr double kStragglerExcess = 0.05;
// The optimizer phase's share of the step.
inline constexpr double kOptimizerHeavyShare = 0.25;
// The backward phase over the forward phase (about 2 for matmul-bound models).
inline constexpr double kBackwardOverForward = 2.5;
// The backward phase with overlapped sync over the one without (mode none), minus 1.
inline constexpr double kSyncSlowsBackward = 0.10;
// The longest wait for a later rank in the collectives, over the synchronised step.
inline constexpr double kLateRankWait = 0.10;
// Host-bound, the one rule that fires below its figure: the GPU's busy share of the step
// (kernel time / step) under kHostBoundBusy while the host takes more than kHostBoundHost of
// the device's time to launch the step, or while the GPU idles more than 1 - kHostBoundBusy of
// the step inside the phases that only launch kernels (forward, loss, backward, optimizer),
// where nothing but the host can keep it waiting, and the host took at least that long to
// launch the step. The second holds a step whose host-bound
// phases are followed by work the GPU runs after the host is done (an optimizer over many
// parameters), so that the host's time per step is well under the device's. It names each
// phase whose idle time (phase - its kernels) is above kIdlePhaseShare of the step.
inline constexpr double kHostBoundBusy = 0.90;
inline constexpr double kHostBoundHost = 0.80;
inline constexpr double kIdlePhaseShare = 0.05;
// How far the 95% interval of a step's median may reach from it (relativeReach), or its samples
// spread (noise, std/mean: the console's noise column), on the rank and mode where the larger
// of the two is largest, before the rules other than host-bound must clear their bounds by that
// much too, or be held back: a figure 3% over its bound says nothing when the medians it is made
// of are uncertain by 11%. The spread counts beside the interval because the interval narrows
// with every sample whatever the spread, while the rules compare medians of cases timed one
// after another (a phase against the step, one mode against another): what spreads a step's
// samples by 20% (other processes, a changing clock) comes and goes between those cases too, and
// moves their medians apart by about as much. One bound for both, as both say how far a median
// may stand from the one the next case would have met.
inline constexpr double kDiagnosisNoise = 0.10;

// One DerivedResult per workload (params model + precision) of suite "step", in the order the
// workloads first appear; figures only where their inputs were measured. Matmul cases of the
// same job (params dtype, rate "TFLOP/s") give the compute ceiling.
std::vector<DerivedResult> deriveStepFigures(const std::vector<CaseResult>& cases);

}  // namespace splitstep
