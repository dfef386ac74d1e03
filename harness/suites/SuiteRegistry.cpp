#include <stdexcept>

#include "suites/AllreduceSuite.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan) {
  if (name == "matmul") return std::make_unique<MatmulSuite>(plan.matmul);
  if (name == "membw") return std::make_unique<MembwSuite>(plan.membw);
  if (name == "allreduce") return std::make_unique<AllreduceSuite>(plan.allreduce);
  throw std::invalid_argument("unknown suite: " + name);
}

}  // namespace splitstep
