// The diagnosis of one workload's step: the bottleneck rules of docs/metrics.md, each read from
// the workload's cases against its threshold in derived/StepAnalysis.hpp. Private to
// derived/StepAnalysis.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "derived/WorkloadCases.hpp"

namespace splitstep::step_analysis {

// A rule that fired: its figure above its bound, both as ratios (a share of the step, one time
// over another), a few words that give them, and its finding.
struct RuleFired {
  double figure = 0;
  double bound = 0;
  std::string measured;  // e.g. "input bound, 50.4% of the step against 50.0%"
  std::string finding;
};

// Judges the workload's step: host-bound first, then the rules of `fired` (the figures' own,
// such as the late rank) and the others. A rule's finding stands only where its figure clears
// its bound by more than the uncertainty of the medians it is made of (the furthest reach of a
// measured step's 95% interval or spread of its samples, when above kDiagnosisNoise): the others
// are held back, in one finding that names them and the uncertainty, first among the findings.
// When nothing fired at all, one line says so and names the largest phase. Returns how many
// findings lead (DerivedResult::lead_findings): two where the held-back one is followed by
// another, so that a noisy host-bound step says both on the console.
std::size_t diagnose(const WorkloadCases& w, std::vector<RuleFired> fired,
                     std::vector<std::string>& findings);

}  // namespace splitstep::step_analysis
