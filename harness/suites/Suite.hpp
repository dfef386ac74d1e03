// A suite produces Samples for its cases; it knows nothing of ranks' other results or output.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/Communicator.hpp"
#include "comm/Watchdog.hpp"
#include "device/Device.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/RankAgreement.hpp"
#include "measure/Sample.hpp"
#include "options/RunPlan.hpp"

namespace splitstep {

struct SuiteContext {
  Device& device;
  std::vector<Communicator*> communicators;  // the collective backends to compare, in order
  RankAgreement& agreement;
  Watchdog& watchdog;
  MeasureSettings measure;
  int rank = 0;
  int world_size = 1;
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  // Every rank calls this with the same plan, so every rank makes the same collective calls.
  virtual std::vector<Sample> run(const SuiteContext& context) = 0;
};

// The suite called `name`, configured from its part of the plan. Throws for an unknown name
// (Options has already refused those).
std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan);

// Whether the suite called `name` runs collectives (and so needs SuiteContext::communicators).
bool usesCommunicators(const std::string& name);

}  // namespace splitstep
