#include "derived/Analyses.hpp"

#include <functional>

#include "derived/CollectiveAnalysis.hpp"
#include "derived/GroupAnalysis.hpp"
#include "derived/StepAnalysis.hpp"
#include "derived/SweepBudget.hpp"
#include "derived/TelemetryAnalysis.hpp"
#include "derived/Verdict.hpp"

namespace splitstep {

std::vector<DerivedResult> deriveAll(const AnalysisInput& input) {
  using Analysis = std::function<std::vector<DerivedResult>(const AnalysisInput&)>;
  const Analysis analyses[] = {
      [](const AnalysisInput& in) { return deriveStepFigures(in.cases); },
      [](const AnalysisInput& in) { return deriveStepProjection(in.cases, in.projection); },
      [](const AnalysisInput& in) { return deriveGroupFigures(in.cases, in.ranks); },
      [](const AnalysisInput& in) { return deriveCollectiveFigures(in.cases, in.projection); },
      [](const AnalysisInput& in) { return deriveStepTelemetry(in.cases); },
      [](const AnalysisInput& in) { return deriveSweepBudget(in.cases); },
      [](const AnalysisInput& in) { return deriveVerdict(in.verdicts, in.ranks); },
  };
  std::vector<DerivedResult> all;
  for (const Analysis& analysis : analyses) {
    std::vector<DerivedResult> results = analysis(input);
    all.insert(all.end(), std::make_move_iterator(results.begin()),
               std::make_move_iterator(results.end()));
  }
  return all;
}

}  // namespace splitstep
