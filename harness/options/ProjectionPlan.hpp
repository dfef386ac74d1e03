// The analysis's projection to more ranks.
#pragma once

#include <optional>
#include <vector>

namespace splitstep {

// Where the analysis projects the collectives and the step to more ranks: nodes of
// `gpus_per_node` ranks joined by the measured link, and a network between nodes
// (docs/metrics.md, "Projection").
struct ProjectionPlan {
  std::vector<int> ranks;
  int gpus_per_node = 8;
  double internode_bandwidth = 50e9;        // bytes/s per rank
  std::optional<double> internode_latency;  // seconds per message; empty: the measured link's
};

}  // namespace splitstep
