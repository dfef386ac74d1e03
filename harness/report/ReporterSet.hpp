// The reporters a run's outputs ask for.
#pragma once

#include <ostream>

#include "options/RunPlan.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

// The files first (report/OutputCatalogue's reporter for each output file the plan writes), then
// the console on `console`: when a launcher ends the job it kills what is still running after a
// short grace period, and the files are what must be complete by then (reporters run in the
// order added).
void addReporters(ReporterMultiplex& reporters, const OutputPlan& output, std::ostream& console);

}  // namespace splitstep
