// The diagnosis of one workload's step: the bottleneck rules of docs/metrics.md, each read from
// the workload's cases against its threshold in analysis/StepAnalysis.hpp. Private to
// analysis/StepAnalysis.
#pragma once

#include <string>
#include <vector>

#include "analysis/WorkloadCases.hpp"

namespace splitstep::step_analysis {

// Appends a finding per rule that fires to `findings` (which may hold the figures' own). When
// `findings` is still empty after, appends one line saying no rule fired and what the largest
// phase is.
void diagnose(const WorkloadCases& w, std::vector<std::string>& findings);

}  // namespace splitstep::step_analysis
