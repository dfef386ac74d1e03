#include <stdexcept>

#include "comm/CollectiveLayout.hpp"

#include "suites/CollectiveSuite.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan) {
  if (name == "matmul") return std::make_unique<MatmulSuite>(plan.matmul);
  if (name == "membw") return std::make_unique<MembwSuite>(plan.membw);
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                       Collective::Broadcast}) {
    if (name == toString(c)) return std::make_unique<CollectiveSuite>(c, plan.collectives);
  }
  throw std::invalid_argument("unknown suite: " + name);
}

}  // namespace splitstep
