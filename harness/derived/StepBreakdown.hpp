// Where a synchronised step's extra time goes, per rank, in parts that add up exactly:
//
//   T_sync - T_c = backward slowdown + packing + tail communication + wait + residual
//
// from the medians of each rank's steps (docs/metrics.md states the identity and each part).
// Every part comes with a 95% interval from a bootstrap over steps. Pure: made-up steps test it.
#pragma once

#include <cstdint>
#include <vector>

namespace splitstep {

// One rank's steps, seconds per step. Step i is the same step on every rank (ranks start each
// step together), so a synchronised mode's series are aligned by index across ranks.
struct RankSteps {
  int rank = 0;
  // The synchronised mode.
  std::vector<double> step;
  std::vector<double> backward;
  std::vector<double> sync;     // the sync phase: packing (sequential) and waiting for collectives
  std::vector<double> packing;  // the part of the sync phase spent packing gradients
  std::vector<double> comm;     // the gradient collectives on their own stream
  // Mode none (T_c), on the same rank.
  std::vector<double> step_none;
  std::vector<double> backward_none;
};

struct Estimate {
  double value = 0;  // from every step
  double low = 0;    // 95% bootstrap interval
  double high = 0;
};

struct StepParts {
  int rank = -1;               // -1: the mean over ranks
  Estimate delta;              // median(T_sync) - median(T_c)
  Estimate backward_slowdown;  // median(backward) - median(backward in mode none)
  Estimate packing;            // median(packing): outside backward (sequential), else 0
  Estimate tail;               // median(sync - packing) - wait: collectives running, not waiting
  Estimate wait;               // median over steps of min(comm - the shortest rank's comm,
                               //   sync - packing): waiting for later ranks, where exposed
  Estimate residual;           // delta less the other parts: what none of them explains
};

struct StepBreakdown {
  std::vector<StepParts> ranks;  // in the order given
  StepParts mean;                // each part's mean over ranks (means add up, as the parts do)
};

// `resamples` bootstrap replicates from a generator seeded with `seed` (reproducible).
// Ranks with no steps in either mode are left out; an empty result when none is left.
StepBreakdown breakDownStep(const std::vector<RankSteps>& ranks, int resamples = 1000,
                            std::uint64_t seed = 2026);

}  // namespace splitstep
