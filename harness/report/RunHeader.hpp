// The terminal report's opening lines: what ran (versions, ranks and their devices, the job, the
// GPU links, the launch environment, the run's notes) and how each case is timed and summed up.
#pragma once

#include <ostream>

#include "meta/RunContext.hpp"

namespace splitstep {

void printRunHeader(std::ostream& out, const RunContext& context);

}  // namespace splitstep
