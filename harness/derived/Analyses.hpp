// Every analysis of the figures derived from several cases, in one list: what runs once all the
// cases of a run are in, in the order reports show the results.
#pragma once

#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "derived/Verdict.hpp"
#include "meta/RankInfo.hpp"
#include "options/RunPlan.hpp"

namespace splitstep {

// What each analysis reads of a run besides its cases.
struct AnalysisInput {
  const std::vector<CaseResult>& cases;
  const std::vector<RankInfo>& ranks;
  const ProjectionPlan& projection;
  // The nodes' verdicts, judged once from the same cases (StreamingReport): the verdict's
  // derived results only present them.
  const std::vector<NodeVerdict>& verdicts;
};

std::vector<DerivedResult> deriveAll(const AnalysisInput& input);

}  // namespace splitstep
