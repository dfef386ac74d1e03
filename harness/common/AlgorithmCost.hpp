// How long one algorithm of a collective takes on n ranks in the latency-bandwidth (Hockney)
// model: latency_steps(n) messages one after another, each costing a link's latency alpha, and
// bandwidth_share(n) x the message's bytes through the busiest rank's link, each byte costing
// the link's beta. Each collective declares its algorithms next to its other properties
// (comm/collectives/); docs/metrics.md ("Projection") gives the formulas and their sources.
#pragma once

#include <string_view>

namespace splitstep {

struct AlgorithmCost {
  std::string_view name;  // "ring", "tree", "direct"
  double (*latency_steps)(double ranks);
  double (*bandwidth_share)(double ranks);
};

}  // namespace splitstep
