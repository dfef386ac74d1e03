// A suite produces Samples for its cases; it knows nothing of ranks' other results or output.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/RankGroups.hpp"
#include "comm/Communicator.hpp"
#include "common/Progress.hpp"
#include "common/Watchdog.hpp"
#include "device/Device.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/RankAgreement.hpp"
#include "measure/Sample.hpp"
#include "measure/Timeline.hpp"
#include "options/RunPlan.hpp"
#include "suites/SuiteCatalog.hpp"
#include "telemetry/TelemetrySampler.hpp"

namespace splitstep {

struct SuiteContext {
  Device& device;
  std::vector<Communicator*> communicators;  // the collective backends to compare, in order
  RankAgreement& agreement;
  Watchdog& watchdog;
  MeasureSettings measure;
  int rank = 0;
  int world_size = 1;
  int ranks_on_node = 1;  // ranks sharing this rank's host memory
  // The groups the collective suites run within (--groups); none: every rank together.
  RankGroups groups{};
  Progress* progress = nullptr;  // told of each case as it begins; none: nothing is shown
  // Where spans are recorded (--trace, and to attribute telemetry); nullptr: nowhere.
  Timeline* timeline = nullptr;
  // The GPU's telemetry (--telemetry); nullptr where there is none.
  const TelemetrySampler* telemetry = nullptr;
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  // Before any suite runs: the reason this suite cannot run on this rank as planned (a case
  // that cannot fit in memory), as one line naming the option; empty when it can. Allocates
  // nothing, so that an infeasible plan is refused in seconds.
  virtual std::optional<std::string> preflight(const SuiteContext&) const { return std::nullopt; }
  // Every rank calls this with the same plan, so every rank makes the same collective calls.
  virtual std::vector<Sample> run(const SuiteContext& context) = 0;
  // How many cases run() will report (each named once, measured or skipped), for the progress
  // line.
  virtual std::size_t caseCount(const SuiteContext& context) const = 0;
};

// Makes the suite `info` names, configured from its part of the plan.
using SuiteFactory = std::unique_ptr<Suite> (*)(const SuiteInfo& info, const RunPlan& plan);

// Registers the factory of the catalogue's suite `name`, once, from the suite's own source file
// (a namespace-scope SuiteRegistration), so that adding a suite touches its file and the
// catalogue only.
struct SuiteRegistration {
  SuiteRegistration(std::string_view name, SuiteFactory factory);
};

// The suite called `name`, configured from its part of the plan. Throws for a name the catalogue
// does not hold or that no suite registered (Options has already refused unknown names).
std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan);

// Whether the suite called `name` runs collectives (and so needs SuiteContext::communicators).
bool usesCommunicators(const std::string& name);

// Catalogue names without a registered factory: empty in a correct build.
std::vector<std::string> unregisteredSuites();

}  // namespace splitstep
