// One collective (allreduce, reduce-scatter, allgather or broadcast) over a sweep of sizes,
// dtypes, placements and backends, side by side, every result checked.
#pragma once

#include "comm/BusBandwidth.hpp"
#include "options/RunPlan.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class CollectiveSuite final : public Suite {
 public:
  CollectiveSuite(Collective collective, CollectivesPlan plan)
      : collective_(collective), plan_(std::move(plan)) {}
  std::string name() const override;
  std::vector<Sample> run(const SuiteContext& context) override;

 private:
  Collective collective_;
  CollectivesPlan plan_;
};

}  // namespace splitstep
