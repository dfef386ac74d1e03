// What a sweep budget (--sweep-time) left uncertain: per suite whose cases it cut short, how many
// it stopped, the sampling time the suite took, and how far the widest interval of those it
// stopped still reaches. The console's tables name the cases; this says how much is at stake.
#pragma once

#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"

namespace splitstep {

// One DerivedResult per suite with a case that some rank stopped on its share of the budget
// (StopRule::SweepTime), in the order the suites first appear; none where the budget stopped
// nothing.
std::vector<DerivedResult> deriveSweepBudget(const std::vector<CaseResult>& cases);

}  // namespace splitstep
