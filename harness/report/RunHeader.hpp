// The terminal report's opening lines: what ran (versions, ranks and their devices, the job, the
// GPU links, the launch environment, the run's notes) and how each case is timed and summed up.
// Compact: the ranks of a node on one line and every line within the console's width; verbose:
// a line per rank and the measurement's every term explained.
#pragma once

#include <ostream>

#include "meta/RunContext.hpp"

namespace splitstep {

void printRunHeader(std::ostream& out, const RunContext& context, bool verbose);

}  // namespace splitstep
