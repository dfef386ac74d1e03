#include "analysis/Analyses.hpp"

#include <functional>

#include "analysis/CollectiveAnalysis.hpp"
#include "analysis/GroupAnalysis.hpp"
#include "analysis/StepAnalysis.hpp"
#include "analysis/TelemetryAnalysis.hpp"
#include "analysis/Verdict.hpp"

namespace splitstep {

std::vector<DerivedResult> deriveAll(const AnalysisInput& input) {
  using Analysis = std::function<std::vector<DerivedResult>(const AnalysisInput&)>;
  const Analysis analyses[] = {
      [](const AnalysisInput& in) { return deriveStepFigures(in.cases); },
      [](const AnalysisInput& in) { return deriveStepProjection(in.cases, in.projection); },
      [](const AnalysisInput& in) { return deriveGroupFigures(in.cases, in.ranks); },
      [](const AnalysisInput& in) { return deriveCollectiveFigures(in.cases, in.projection); },
      [](const AnalysisInput& in) { return deriveStepTelemetry(in.cases); },
      [](const AnalysisInput& in) { return deriveVerdict(in.cases, in.ranks); },
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
