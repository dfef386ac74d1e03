// The reporters a run's outputs ask for, and the files written once the run is over.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "collect/TimelineCodec.hpp"
#include "meta/RankInfo.hpp"
#include "options/RunPlan.hpp"
#include "report/Reporter.hpp"

namespace splitstep {

// The files first, then the console on `console`: when a launcher ends the job it kills what is
// still running after a short grace period, and the files are what must be complete by then
// (reporters run in the order added).
void addReporters(ReporterMultiplex& reporters, const OutputPlan& output, std::ostream& console);

// The Perfetto trace of `timelines` (one per rank, on rank 0's clock) at `path`; returns the
// largest uncertainty of a rank's clock against rank 0's.
double writeTrace(const std::string& path, const std::vector<RankInfo>& ranks,
                  const std::vector<RankTimeline>& timelines, const std::string& command_line);

}  // namespace splitstep
