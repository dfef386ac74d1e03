#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "comm/CollectiveLayout.hpp"
#include "suites/CollectiveSuite.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"
#include "suites/StepSuite.hpp"
#include "suites/Suite.hpp"

namespace splitstep {
namespace {

constexpr Collective kCollectives[] = {Collective::AllReduce, Collective::ReduceScatter,
                                       Collective::AllGather, Collective::Broadcast};

}  // namespace

bool usesCommunicators(const std::string& name) {
  return name == "step" || std::any_of(std::begin(kCollectives), std::end(kCollectives),
                                       [&name](Collective c) { return name == toString(c); });
}

std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan) {
  if (name == "matmul") return std::make_unique<MatmulSuite>(plan.matmul);
  if (name == "membw") return std::make_unique<MembwSuite>(plan.membw);
  if (name == "step") return std::make_unique<StepSuite>(plan.step);
  for (Collective c : kCollectives) {
    if (name == toString(c)) return std::make_unique<CollectiveSuite>(c, plan.collectives);
  }
  throw std::invalid_argument("unknown suite: " + name);
}

}  // namespace splitstep
