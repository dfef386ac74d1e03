// Clocks and power during a training step, phase by phase and mode by mode, from the telemetry
// of the step suite's cases; and whether a lower SM clock (the power cap) explains why
// overlapped gradient sync slows the backward pass. Reads only CaseResults and their params.
#pragma once

#include <cstddef>
#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"

namespace splitstep {

// A phase's figure needs at least this many SM clock readings on every rank that measured it.
inline constexpr std::size_t kMinPhaseReadings = 5;
// Clocks closer than this (relative) are the same clock.
inline constexpr double kSameClock = 0.01;

// One DerivedResult per workload (params model + precision) of suite "step" whose cases carry
// telemetry, in the order the workloads first appear.
std::vector<DerivedResult> deriveStepTelemetry(const std::vector<CaseResult>& cases);

}  // namespace splitstep
