// %timeit's lines for one case (--verbose): the slowest rank's mean and spread, its median with
// its interval, why sampling stopped and where the case's wall time went.
#pragma once

#include <ostream>
#include <string>

#include "derived/CaseResult.hpp"

namespace splitstep {

void printTimeit(std::ostream& out, const std::string& label, const RankResult& r);

}  // namespace splitstep
