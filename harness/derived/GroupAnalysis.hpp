// Link health by groups of ranks: each group's bus bandwidth against the median group's, for
// the collective cases run within groups (--groups: params "group"), and the groups far below
// it — the bisection for a slow link, GPU or node that one figure over all ranks hides.
// It reads only CaseResults, their params and rates, and where each rank ran (docs/metrics.md).
#pragma once

#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

// A group is flagged when its busbw is strictly below this fraction of the median group's:
// repeated runs of one link agree within a few percent, while a link that lost lanes or fell
// back to a slower path moves half as much or less.
inline constexpr double kGroupFarBelowMedian = 0.75;
// Samples that spread by more than the flag's margin (std/mean above 1 - kGroupFarBelowMedian)
// can move a group across it by chance: the findings then say so.
inline constexpr double kGroupNoiseCaution = 1 - kGroupFarBelowMedian;

// One DerivedResult per collective, backend, dtype, placement and size that ran in groups, and
// per number of nodes a group spans (groups within a node are held against each other, groups
// across nodes against each other: the network is not a node's NVLink), in the order they first
// appear: the median group's busbw, each group's, and findings for the groups far below the
// median, naming the ranks' hosts and devices from `ranks`.
std::vector<DerivedResult> deriveGroupFigures(const std::vector<CaseResult>& cases,
                                              const std::vector<RankInfo>& ranks);

}  // namespace splitstep
